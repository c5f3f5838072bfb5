// The lambda that a curried lambda returns takes one argument (manual §1.13: `w(4)(5)`):
// calling it with two is an error at the call, naming the counts.
quasar::quasar! { r#"
function y = curried(t : scalar)
    add = x -> y -> x + y
    y = add(1)(t, 2)
endfunction
"# }

fn main() {}
