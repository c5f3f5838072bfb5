// Captured variables are read-only inside a function.
quasar::quasar! { r#"
count = 0
function [] = bump(n : int)
    count += n
endfunction
bump(4)
"# }

fn main() {}
