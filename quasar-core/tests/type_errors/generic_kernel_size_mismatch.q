function [] = __kernel__ count[Bins : int](hist : vec(Bins), pos : int)
    hist[mod(pos, Bins)] += 1
endfunction
h = zeros(16)
parallel_do(100, h, count[256])
