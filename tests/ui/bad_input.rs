// The macro takes a string literal or `file = "path.q"`, nothing else.
quasar::quasar!(path = "filters.q");

fn main() {}
