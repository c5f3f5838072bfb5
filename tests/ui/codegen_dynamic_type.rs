// A value whose type is only known at run time (`??`) has no Rust representation.
quasar::quasar! { r#"
a = 0.0
v = ones(2, 2, 2)
for k = 0..1
    a = a + v
endfor
"# }

fn main() {}
