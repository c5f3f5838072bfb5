// A block closed by the wrong keyword (`endif` for a `for`) is a syntax error.
quasar::quasar! { r#"
function y = total(x : vec)
    y = 0.0
    for i = 0..numel(x) - 1
        y += x[i]
    endif
endfunction
"# }

fn main() {}
