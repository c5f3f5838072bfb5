% known-slices: `:` over a dimension of known extent becomes a constant range, so the loop
% nest over pixels is parallelised and the kernel computes a small matrix-vector product.
function out = mix[N](M : mat(N, N), img : cube(:, :, N))
    out = zeros(size(img, 0), size(img, 1), N)
    for r = 0..size(img, 0) - 1
        for c = 0..size(img, 1) - 1
            out[r, c, :] = M * squeeze(img[r, c, :])
        endfor
    endfor
endfunction

function out = gray3(img : cube(:, :, 3))
    M : mat(3, 3) = [[0.3, 0.6, 0.1], [0.3, 0.6, 0.1], [0.3, 0.6, 0.1]]
    out = mix(M, img)
endfunction
