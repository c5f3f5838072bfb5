use quasar_core::{syntax::parse, SourceMap};
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let verbose = std::env::args().nth(2).is_some();
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut okc, mut bad) = (0, 0);
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let mut map = SourceMap::new();
        let id = map.add(f.file_name().unwrap().to_string_lossy(), src.clone());
        let p = parse(&src, id);
        if p.has_errors() {
            bad += 1;
            if verbose { print!("{}", map.render(&p.diagnostics)); } else {
                let d = p.diagnostics.iter().find(|d| d.is_error()).unwrap();
                println!("{}:{}:{} {}", f.file_name().unwrap().to_string_lossy(), d.span.line, d.span.col, d.message);
            }
        } else { okc += 1; }
    }
    println!("{okc} parse, {bad} fail, of {}", files.len());
}
