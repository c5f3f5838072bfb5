// Options other than `file` and `double` are rejected.
quasar::quasar!("x = 1", foo = 1);

fn main() {}
