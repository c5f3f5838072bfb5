// The Quasar source must be a string literal, not some other token.
quasar::quasar!(42);

fn main() {}
