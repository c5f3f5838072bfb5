use quasar_core::syntax::parse;
use quasar_core::FileId;

fn run(name: &str, src: &str) {
    eprintln!("{name}: len {}", src.len());
    let p = parse(src, FileId(0));
    eprintln!(
        "  {} diags, first: {:?}",
        p.diagnostics.len(),
        p.diagnostics.first().map(|d| &d.message)
    );
    if std::env::var("PRINT").is_ok() {
        let printed = quasar_core::syntax::printer::print_program(&p.program);
        eprintln!("  printed len {}", printed.len());
    }
    drop(p);
    eprintln!("  dropped");
}

#[test]
fn probe() {
    let which = std::env::var("PROBE").unwrap();
    let n: usize = std::env::var("N").map(|v| v.parse().unwrap()).unwrap_or(100_000);
    let src = match which.as_str() {
        "paren" => "(".repeat(n),
        "bracket" => "[".repeat(n),
        "minus" => "-".repeat(n),
        "assign" => "x = ".repeat(n),
        "if" => "if a\n".repeat(n),
        "plus" => format!("y = {}a", "a + ".repeat(n)),
        "call" => format!("y = a{}", "(1)".repeat(n)),
        "field" => format!("y = a{}", ".b".repeat(n)),
        "pow" => format!("y = a{}", "^2".repeat(n)),
        "fntype" => format!("x : [{}a]", "a -> ".repeat(n)),
        "range" => format!("y = {}", "a..".repeat(n)),
        "mul" => format!("y = {}a", "a * ".repeat(n)),
        "or" => format!("y = {}a", "a || ".repeat(n)),
        "pipe" => format!("y = {}a", "a |> ".repeat(n)),
        "modif" => format!("y = a{}", "'c".repeat(n)),
        "idx" => format!("y = a{}", "[1]".repeat(n)),
        "cmp" => format!("y = {}a", "a < ".repeat(n)),
        _ => panic!(),
    };
    run(&which, &src);
}
