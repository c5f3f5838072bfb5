//! Strings, printing, files, images, plots and timing (manual tables 14.1 and 14.2). All are
//! host functions, except `print` and `assert`, which kernels may call too (manual §4.3, §5.1).

use super::common::{
    args, const_str, everywhere, expected, host_only, is_num, is_open, is_real, is_value,
    no_type_args, string_arg,
};
use super::{ArgInfo, BuiltinCall, RuleResult, Signature};
use crate::ir::Builtin as B;
use crate::sema::types::{Dim, Rank, Type};

/// Every argument is a value (not `()` or a type).
fn values(name: &str, a: &[ArgInfo]) -> Result<(), String> {
    match a.iter().find(|x| !is_value(&x.ty)) {
        Some(x) => Err(expected(name, "a value", &x.ty)),
        None => Ok(()),
    }
}

/// `print(values…)` (also the statement `print a, b`). Kernel and device functions may print
/// strings, numbers and fixed-length vectors only (manual §4.3).
fn print(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "print")?;
    let a = args(c, "print", 0, usize::MAX)?;
    values("print", a)?;
    if c.in_device_code {
        for x in a {
            let ok = match &x.ty {
                Type::String => true,
                t if is_num(t) => true,
                Type::Array(arr) => {
                    is_num(&arr.elem)
                        && arr.rank == Rank::Fixed(1)
                        && matches!(arr.shape.as_deref(), Some([Dim::Known(_)]))
                }
                _ => false,
            };
            if !ok {
                return Err(format!(
                    "`print` in kernel and device functions takes strings, numbers and \
                     fixed-length vectors, found {}",
                    x.ty
                ));
            }
        }
    }
    Ok(Type::Void)
}

/// `assert(cond)`, `assert(cond, message, values…)`.
fn assert(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "assert")?;
    let a = args(c, "assert", 1, usize::MAX)?;
    let cond = &a[0].ty;
    let ok = is_open(cond)
        || is_num(cond)
        || matches!(cond, Type::Array(arr) if is_num(&arr.elem) || is_open(&arr.elem));
    if !ok {
        return Err(expected("assert", "a condition (a number)", cond));
    }
    values("assert", &a[1..])?;
    Ok(Type::Void)
}

/// `unassert(cond)`: withdraws an assertion from the compiler's logic system (manual §5.5).
fn unassert(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "unassert")?;
    args(c, "unassert", 1, 1)?;
    Ok(Type::Void)
}

/// `sprintf(format, values…)`: the formatted string.
fn sprintf(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "sprintf")?;
    let a = args(c, "sprintf", 1, usize::MAX)?;
    string_arg("sprintf", "a format string", &a[0])?;
    values("sprintf", &a[1..])?;
    Ok(Type::String)
}

/// `printf(format, values…)`.
fn printf(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "printf")?;
    let a = args(c, "printf", 1, usize::MAX)?;
    string_arg("printf", "a format string", &a[0])?;
    values("printf", &a[1..])?;
    Ok(Type::Void)
}

/// `fprintf(file, format, values…)`.
fn fprintf(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fprintf")?;
    let a = args(c, "fprintf", 2, usize::MAX)?;
    file_arg("fprintf", &a[0])?;
    string_arg("fprintf", "a format string", &a[1])?;
    values("fprintf", a)?;
    Ok(Type::Void)
}

/// `sscanf(string, format)`: the values read, as a vector (MATLAB's `sscanf`).
fn sscanf(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "sscanf")?;
    let a = args(c, "sscanf", 2, 2)?;
    string_arg("sscanf", "a string", &a[0])?;
    string_arg("sscanf", "a format string", &a[1])?;
    Ok(Type::vec(Type::SCALAR))
}

/// `num2str(x)`, `string(x)`: the textual form of a value.
fn to_string(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 2)?;
    values(name, &a[..1])?;
    if let Some(f) = a.get(1) {
        string_arg(name, "a format string", f)?;
    }
    Ok(Type::String)
}

fn num2str(c: &BuiltinCall) -> RuleResult {
    to_string(c, "num2str")
}

fn string(c: &BuiltinCall) -> RuleResult {
    to_string(c, "string")
}

/// `strcat(s…)`: the concatenation (numbers are converted to text).
fn strcat(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "strcat")?;
    let a = args(c, "strcat", 1, usize::MAX)?;
    for x in a {
        if !(matches!(x.ty, Type::String | Type::TypeValue(_)) || is_open(&x.ty) || is_num(&x.ty)) {
            return Err(expected("strcat", "strings", &x.ty));
        }
    }
    Ok(Type::String)
}

/// `fromascii(s)`, `fromunicode(s)`: the character codes of a string, as a vector.
fn from_text(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    string_arg(name, "a string", &a[0])?;
    Ok(Type::vec(Type::SCALAR))
}

fn fromascii(c: &BuiltinCall) -> RuleResult {
    from_text(c, "fromascii")
}

fn fromunicode(c: &BuiltinCall) -> RuleResult {
    from_text(c, "fromunicode")
}

/// `toascii(v)`, `tounicode(v)`: the string with these character codes.
fn to_text(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    let ok = match &a[0].ty {
        Type::Array(arr) => is_open(&arr.elem) || is_real(&arr.elem),
        t => is_open(t) || is_real(t),
    };
    if !ok {
        return Err(expected(name, "a vector of character codes", &a[0].ty));
    }
    Ok(Type::String)
}

fn toascii(c: &BuiltinCall) -> RuleResult {
    to_text(c, "toascii")
}

fn tounicode(c: &BuiltinCall) -> RuleResult {
    to_text(c, "tounicode")
}

/// `imread(file)`: a `cube` (grayscale images have one channel); `imread(file, "rgb")`:
/// a `cube(:, :, 3)` (manual §2.2), `"rgba"` a `cube(:, :, 4)`, `"gray"` a `mat`.
fn imread(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "imread")?;
    let a = args(c, "imread", 1, 2)?;
    string_arg("imread", "a file name", &a[0])?;
    let channels =
        |k| Type::array_with_shape(Type::SCALAR, vec![Dim::Unknown, Dim::Unknown, Dim::Known(k)]);
    let Some(mode) = a.get(1) else { return Ok(Type::array(Type::SCALAR, 3)) };
    string_arg("imread", "a color mode (\"rgb\", \"rgba\", \"gray\")", mode)?;
    Ok(match const_str(mode).map(str::to_ascii_lowercase).as_deref() {
        Some("rgb") => channels(3),
        Some("rgba") => channels(4),
        Some("gray" | "grey" | "grayscale" | "greyscale") => Type::array(Type::SCALAR, 2),
        _ => Type::array(Type::SCALAR, 3),
    })
}

/// An image or data argument: a numeric array.
fn image_arg(name: &str, a: &ArgInfo) -> Result<(), String> {
    match &a.ty {
        t if is_open(t) => Ok(()),
        Type::Array(arr) if is_num(&arr.elem) || is_open(&arr.elem) => Ok(()),
        t => Err(expected(name, "an image (an array of numbers)", t)),
    }
}

/// `imwrite(file, data)`, `imwrite(file, data, [min, max])`.
fn imwrite(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "imwrite")?;
    let a = args(c, "imwrite", 2, 3)?;
    string_arg("imwrite", "a file name", &a[0])?;
    image_arg("imwrite", &a[1])?;
    Ok(Type::Void)
}

/// `imshow(img)`, `imshow(img, [min, max])`: the figure (a run-time object).
fn imshow(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "imshow")?;
    let a = args(c, "imshow", 1, 2)?;
    image_arg("imshow", &a[0])?;
    Ok(Type::Unknown)
}

/// `plot(x, y, …)`: the figure.
fn plot(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "plot")?;
    let a = args(c, "plot", 1, usize::MAX)?;
    values("plot", a)?;
    Ok(Type::Unknown)
}

/// `title`, `xlabel`, `ylabel`, `legend`: plot annotations with string arguments.
fn annotation(c: &BuiltinCall, name: &str, max: usize) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, max)?;
    for x in a {
        string_arg(name, "a string", x)?;
    }
    Ok(Type::Void)
}

fn title(c: &BuiltinCall) -> RuleResult {
    annotation(c, "title", 1)
}

fn xlabel(c: &BuiltinCall) -> RuleResult {
    annotation(c, "xlabel", 1)
}

fn ylabel(c: &BuiltinCall) -> RuleResult {
    annotation(c, "ylabel", 1)
}

fn legend(c: &BuiltinCall) -> RuleResult {
    annotation(c, "legend", usize::MAX)
}

/// `xlim([lo, hi])`, `ylim([lo, hi])`.
fn limits(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, 1)?;
    image_arg(name, &a[0]).map_err(|_| expected(name, "a range [min, max]", &a[0].ty))?;
    Ok(Type::Void)
}

fn xlim(c: &BuiltinCall) -> RuleResult {
    limits(c, "xlim")
}

fn ylim(c: &BuiltinCall) -> RuleResult {
    limits(c, "ylim")
}

/// `disp(x)`.
fn disp(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "disp")?;
    let a = args(c, "disp", 1, 1)?;
    values("disp", a)?;
    Ok(Type::Void)
}

/// `pause(msec)`.
fn pause(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "pause")?;
    let a = args(c, "pause", 1, 1)?;
    if !(is_open(&a[0].ty) || is_real(&a[0].ty)) {
        return Err(expected("pause", "a duration (a number)", &a[0].ty));
    }
    Ok(Type::Void)
}

/// `[A, B, …] = load(file)`: values whose types are only known at run time.
fn load(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "load")?;
    let a = args(c, "load", 1, 1)?;
    string_arg("load", "a file name", &a[0])?;
    Ok(Type::Unknown)
}

/// `save(file, values…)`.
fn save(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "save")?;
    let a = args(c, "save", 1, usize::MAX)?;
    string_arg("save", "a file name", &a[0])?;
    values("save", &a[1..])?;
    Ok(Type::Void)
}

/// `dir(pattern)`: the matching file names.
fn dir(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "dir")?;
    let a = args(c, "dir", 1, 1)?;
    string_arg("dir", "a path pattern", &a[0])?;
    Ok(Type::vec(Type::String))
}

fn tic(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "tic")?;
    args(c, "tic", 0, 0)?;
    Ok(Type::Void)
}

/// `toc()`, and the older `toc(label)`: prints and returns the milliseconds since `tic()`.
fn toc(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "toc")?;
    let a = args(c, "toc", 0, 1)?;
    if let Some(label) = a.first() {
        string_arg("toc", "a label (a string)", label)?;
    }
    Ok(Type::SCALAR)
}

/// `hold("on")`, `hold("off")`: keeps the current plot's lines or not; the result says
/// whether the figure window is still open (0 when running headless).
fn hold(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "hold")?;
    let a = args(c, "hold", 1, 1)?;
    string_arg("hold", "\"on\" or \"off\"", &a[0])?;
    Ok(Type::INT)
}

/// `eval(expr)`: the value of a Quasar expression given as a string.
fn eval(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "eval")?;
    let a = args(c, "eval", 1, 1)?;
    string_arg("eval", "an expression as a string", &a[0])?;
    Ok(Type::Unknown)
}

/// A file argument: the identifier `fopen` returns (an integer, as MATLAB's `fopen`; 1 and 2
/// are standard output and error for `fprintf`).
fn file_arg(name: &str, a: &ArgInfo) -> Result<(), String> {
    if is_open(&a.ty) || matches!(a.ty, Type::Int(..)) {
        Ok(())
    } else {
        Err(expected(name, "a file identifier (what `fopen` returns)", &a.ty))
    }
}

/// `fopen(file, mode)`: a file identifier (an `int`; the open file lives in the run-time
/// library's table until `fclose`).
fn fopen(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fopen")?;
    let a = args(c, "fopen", 1, 2)?;
    for x in a {
        string_arg("fopen", "a file name and a mode", x)?;
    }
    Ok(Type::INT)
}

/// `fread(f, dims, "float32")`: `prod(dims)` elements as a `scalar` array of shape `dims`
/// (converted to `scalar`, as MATLAB's `fread` converts to `double`).
fn fread(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fread")?;
    let a = args(c, "fread", 2, 3)?;
    file_arg("fread", &a[0])?;
    if let Some(t) = a.get(2) {
        string_arg("fread", "an element type name", t)?;
    }
    let (rank, shape) = super::common::dims("fread", &a[1..2])?;
    Ok(super::common::make_array(Type::SCALAR, rank, shape))
}

/// `fwrite(f, data, "float32")`.
fn fwrite(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fwrite")?;
    let a = args(c, "fwrite", 2, 3)?;
    file_arg("fwrite", &a[0])?;
    values("fwrite", a)?;
    if let Some(t) = a.get(2) {
        string_arg("fwrite", "an element type name", t)?;
    }
    Ok(Type::Void)
}

fn fclose(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fclose")?;
    let a = args(c, "fclose", 1, 1)?;
    file_arg("fclose", &a[0])?;
    Ok(Type::Void)
}

/// `fgets(f)`: one line of text.
fn fgets(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "fgets")?;
    let a = args(c, "fgets", 1, 1)?;
    file_arg("fgets", &a[0])?;
    Ok(Type::String)
}

/// `object()`: an empty dynamic structure.
fn object(c: &BuiltinCall) -> RuleResult {
    no_type_args(c, "object")?;
    args(c, "object", 0, 0)?;
    Ok(Type::Unknown)
}

/// `mat2cell(x)`, `cell2mat(c)`: conversions between matrices and cell matrices.
fn cell_conversion(c: &BuiltinCall, name: &str) -> RuleResult {
    no_type_args(c, name)?;
    let a = args(c, name, 1, usize::MAX)?;
    match &a[0].ty {
        t if is_open(t) => Ok(Type::Unknown),
        Type::Array(_) | Type::CellTuple(_) => Ok(Type::Unknown),
        t => Err(expected(name, "an array", t)),
    }
}

fn mat2cell(c: &BuiltinCall) -> RuleResult {
    cell_conversion(c, "mat2cell")
}

fn cell2mat(c: &BuiltinCall) -> RuleResult {
    cell_conversion(c, "cell2mat")
}

pub(super) const SIGNATURES: &[Signature] = &[
    everywhere(B::Print, "print(values...)", print),
    everywhere(B::Unassert, "unassert(condition)", unassert),
    everywhere(B::Assert, "assert(condition, message...)", assert),
    host_only(B::Sprintf, "sprintf(format, values...)", sprintf),
    host_only(B::Printf, "printf(format, values...)", printf),
    host_only(B::Fprintf, "fprintf(file, format, values...)", fprintf),
    host_only(B::Sscanf, "sscanf(string, format)", sscanf),
    host_only(B::Num2str, "num2str(x)", num2str),
    host_only(B::String, "string(x)", string),
    host_only(B::Strcat, "strcat(strings...)", strcat),
    host_only(B::Fromascii, "fromascii(string)", fromascii),
    host_only(B::Fromunicode, "fromunicode(string)", fromunicode),
    host_only(B::Toascii, "toascii(codes)", toascii),
    host_only(B::Tounicode, "tounicode(codes)", tounicode),
    host_only(B::Imread, "imread(file) or imread(file, mode)", imread),
    host_only(B::Imwrite, "imwrite(file, data) or imwrite(file, data, [min, max])", imwrite),
    host_only(B::Imshow, "imshow(img) or imshow(img, [min, max])", imshow),
    host_only(B::Plot, "plot(x, y)", plot),
    host_only(B::Title, "title(text)", title),
    host_only(B::Xlabel, "xlabel(text)", xlabel),
    host_only(B::Ylabel, "ylabel(text)", ylabel),
    host_only(B::Legend, "legend(texts...)", legend),
    host_only(B::Xlim, "xlim([min, max])", xlim),
    host_only(B::Ylim, "ylim([min, max])", ylim),
    host_only(B::Disp, "disp(x)", disp),
    host_only(B::Pause, "pause(msec)", pause),
    host_only(B::Load, "[A, B, ...] = load(file)", load),
    host_only(B::Save, "save(file, values...)", save),
    host_only(B::Dir, "dir(pattern)", dir),
    host_only(B::Tic, "tic()", tic),
    host_only(B::Toc, "toc() or toc(label)", toc),
    host_only(B::Hold, "hold(\"on\")", hold),
    host_only(B::Eval, "eval(expression)", eval),
    host_only(B::Fopen, "fopen(file, mode)", fopen),
    host_only(B::Fread, "fread(file, dims, type)", fread),
    host_only(B::Fwrite, "fwrite(file, data, type)", fwrite),
    host_only(B::Fclose, "fclose(file)", fclose),
    host_only(B::Fgets, "fgets(file)", fgets),
    host_only(B::Object, "object()", object),
    host_only(B::Mat2cell, "mat2cell(x)", mat2cell),
    host_only(B::Cell2mat, "cell2mat(c)", cell2mat),
];

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn strings() {
        assert_eq!(ok("sprintf", &[s("(%f,%f)"), a("scalar"), a("scalar")]), "string");
        assert_eq!(ok("printf", &[s("%d\n"), a("int")]), "()");
        assert_eq!(ok("fprintf", &[a("??"), s("%s"), a("??")]), "()");
        assert_eq!(ok("num2str", &[a("scalar")]), "string");
        assert_eq!(ok("strcat", &[s("a"), a("string")]), "string");
        assert_eq!(ok("fromascii", &[s("abc")]), "vec");
        assert_eq!(ok("toascii", &[a("vec")]), "string");
        assert_eq!(err("sprintf", &[a("int")]), "`sprintf` expects a format string, found int");
        assert_eq!(
            err("toascii", &[a("string")]),
            "`toascii` expects a vector of character codes, found string"
        );
    }

    #[test]
    fn images_files_and_timing() {
        assert_eq!(ok("imread", &[s("lena.tif")]), "cube");
        assert_eq!(ok("imread", &[s("image.png"), s("rgb")]), "cube(:, :, 3)");
        assert_eq!(ok("imread", &[s("image.png"), s("rgba")]), "cube(:, :, 4)");
        assert_eq!(ok("imread", &[s("image.png"), s("gray")]), "mat");
        assert_eq!(ok("imwrite", &[s("out.png"), a("cube")]), "()");
        assert_eq!(ok("imshow", &[a("mat")]), "??");
        assert_eq!(ok("load", &[s("out.dat")]), "??");
        assert_eq!(ok("save", &[s("out.dat"), a("mat"), a("vec")]), "()");
        assert_eq!(ok("dir", &[s("/home/*.png")]), "vec[string]");
        assert_eq!(ok("tic", &[]), "()");
        assert_eq!(ok("toc", &[]), "scalar");
        assert_eq!(ok("toc", &[s("")]), "scalar");
        assert_eq!(ok("hold", &[s("on")]), "int");
        assert_eq!(ok("sscanf", &[s("1 2"), s("%d")]), "vec");
        assert_eq!(ok("eval", &[s("x -> 2*x")]), "??");
        assert_eq!(ok("fgets", &[a("??")]), "string");
        assert_eq!(ok("fgets", &[a("int")]), "string");
        assert_eq!(ok("fopen", &[s("out.dat"), s("wb")]), "int");
        assert_eq!(ok("fread", &[a("int"), a("ivec2"), s("float32")]), "mat");
        assert_eq!(ok("fread", &[a("int"), a("int"), s("uint8")]), "vec");
        assert_eq!(ok("fwrite", &[a("int"), a("mat"), s("float32")]), "()");
        assert_eq!(ok("fclose", &[a("int")]), "()");
        assert_eq!(
            err("fclose", &[a("mat")]),
            "`fclose` expects a file identifier (what `fopen` returns), found mat"
        );
        assert_eq!(err("imread", &[a("int")]), "`imread` expects a file name, found int");
        assert_eq!(
            err("imshow", &[a("string")]),
            "`imshow` expects an image (an array of numbers), found string"
        );
        assert_eq!(err("tic", &[a("int")]), "`tic` expects 0 arguments, found 1");
    }

    #[test]
    fn print_and_assert() {
        assert_eq!(ok("print", &[s("a = "), a("mat")]), "()");
        assert_eq!(ok("print", &[]), "()");
        assert_eq!(run("print", &[], &[s("x"), a("vec3"), a("cscalar")], true).unwrap(), "()");
        assert_eq!(
            run("print", &[], &[a("mat")], true).unwrap_err(),
            "`print` in kernel and device functions takes strings, numbers and fixed-length \
             vectors, found mat"
        );
        assert_eq!(ok("assert", &[a("int")]), "()");
        assert_eq!(ok("assert", &[a("int"), s("failed:"), a("ivec2")]), "()");
        assert_eq!(
            err("assert", &[s("x")]),
            "`assert` expects a condition (a number), found string"
        );
        assert_eq!(err("assert", &[]), "`assert` expects at least 1 argument, found 0");
    }
}
