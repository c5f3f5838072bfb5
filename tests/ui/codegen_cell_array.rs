// Cell arrays type-check, but the Rust backend does not generate code for them yet.
quasar::quasar! { r#"
c = {1, "a"}
"# }

fn main() {}
