function S = tiles(M : int, N : int, K : int)
    S : 'shared = uninit(M,N,K)
endfunction
