// `file = "…"` names a `.q` file (relative to CARGO_MANIFEST_DIR); a file that cannot be read is
// a compile error. The path is absolute so that the message does not depend on where trybuild
// builds the test (a relative path is resolved against its project under the target directory).
quasar::quasar!(file = "/nonexistent/missing.q");

fn main() {}
