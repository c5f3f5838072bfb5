// A misspelt built-in and a misspelt variable get a "did you mean" note with the closest name.
quasar::quasar! { r#"
function y = scaled(x : mat, factor : scalar)
    acc = zeroes(size(x))
    y = acc + x * facter
endfunction
"# }

fn main() {}
