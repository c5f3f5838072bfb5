//! The built-in functions as one enum, from one table: every name the type checker's
//! signature table (`sema::builtins`) types, the methods of the cooperative-groups class
//! `thread_block`, and the compile-time meta functions (`$eval`, …). Calls in the IR name a
//! [`Builtin`], never a string; each back end dispatches on it with an exhaustive `match`, so
//! adding a built-in here is a compile error in every back end until it says what it does
//! with it (see `docs/ARCHITECTURE.md`, "Adding a built-in").

/// Declares [`Builtin`] with its names: `functions` are called by name (`sin(x)`),
/// `group_methods` on a `thread_block` (`g.shfl_down(v, 1)`), `meta` at compile time.
macro_rules! builtins {
    (
        functions { $($f:ident = $fname:literal,)* }
        group_methods { $($m:ident = $mname:literal,)* }
        meta { $($t:ident = $tname:literal,)* }
    ) => {
        /// A built-in function (manual chapter 14), method of `thread_block` (§9.8) or meta
        /// function (§8.6).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Builtin {
            $(#[doc = concat!("`", $fname, "`")] $f,)*
            $(#[doc = concat!("the `thread_block` method `", $mname, "`")] $m,)*
            $(#[doc = concat!("the meta function `", $tname, "`")] $t,)*
        }

        impl Builtin {
            /// Every built-in, in table order.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$f,)* $(Builtin::$m,)* $(Builtin::$t,)*];

            /// The name as written in Quasar (a method's name without the receiver).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Builtin::$f => $fname,)*
                    $(Builtin::$m => $mname,)*
                    $(Builtin::$t => $tname,)*
                }
            }

            /// Whether it is a function, a `thread_block` method or a meta function.
            pub const fn kind(self) -> BuiltinKind {
                match self {
                    $(Builtin::$f => BuiltinKind::Function,)*
                    $(Builtin::$m => BuiltinKind::GroupMethod,)*
                    $(Builtin::$t => BuiltinKind::Meta,)*
                }
            }

            /// The built-in function called `name`.
            pub fn function(name: &str) -> Option<Builtin> {
                match name {
                    $($fname => Some(Builtin::$f),)*
                    _ => None,
                }
            }

            /// The method `name` of `thread_block`.
            pub fn group_method(name: &str) -> Option<Builtin> {
                match name {
                    $($mname => Some(Builtin::$m),)*
                    _ => None,
                }
            }

            /// The meta function `name` (with its `$`).
            pub fn meta(name: &str) -> Option<Builtin> {
                match name {
                    $($tname => Some(Builtin::$t),)*
                    _ => None,
                }
            }
        }
    };
}

impl Builtin {
    /// The math functions that apply element by element to real numbers and arrays, without
    /// effects, and compile in kernels: what the kernel generator fuses over arrays and what
    /// strips of kernel positions may call (`analysis::lockstep`, with a few more).
    pub const ELEMENTWISE: &'static [Builtin] = &[
        Builtin::Sin,
        Builtin::Cos,
        Builtin::Tan,
        Builtin::Asin,
        Builtin::Acos,
        Builtin::Atan,
        Builtin::Sinh,
        Builtin::Cosh,
        Builtin::Tanh,
        Builtin::Exp,
        Builtin::Exp2,
        Builtin::Log,
        Builtin::Log2,
        Builtin::Log10,
        Builtin::Sqrt,
        Builtin::Rsqrt,
        Builtin::Atan2,
        Builtin::Pow,
        Builtin::Abs,
        Builtin::Sign,
        Builtin::Floor,
        Builtin::Ceil,
        Builtin::Round,
        Builtin::Frac,
        Builtin::Saturate,
        Builtin::Lerp,
    ];
}

/// Where a built-in is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinKind {
    /// By name, with a signature in `sema::builtins::table()`.
    Function,
    /// As a method of a `thread_block` value (the receiver is the first argument).
    GroupMethod,
    /// A compile-time meta function (`$eval`, `$check`, …).
    Meta,
}

builtins! {
    functions {
        // Construction and reshaping (`sema/builtins/construct.rs`).
        Zeros = "zeros",
        Ones = "ones",
        Uninit = "uninit",
        Rand = "rand",
        Randn = "randn",
        Czeros = "czeros",
        Cones = "cones",
        Cell = "cell",
        Eye = "eye",
        Linspace = "linspace",
        Copy = "copy",
        Deepcopy = "deepcopy",
        Reshape = "reshape",
        Repmat = "repmat",
        Squeeze = "squeeze",
        Shuffledims = "shuffledims",
        // Shapes.
        Size = "size",
        Numel = "numel",
        Ndims = "ndims",
        Ind2pos = "ind2pos",
        Pos2ind = "pos2ind",
        // Element-wise math.
        Sin = "sin",
        Cos = "cos",
        Tan = "tan",
        Asin = "asin",
        Acos = "acos",
        Atan = "atan",
        Sinh = "sinh",
        Cosh = "cosh",
        Tanh = "tanh",
        Exp = "exp",
        Exp2 = "exp2",
        Log = "log",
        Log2 = "log2",
        Log10 = "log10",
        Sqrt = "sqrt",
        Rsqrt = "rsqrt",
        Atan2 = "atan2",
        Pow = "pow",
        Abs = "abs",
        Sign = "sign",
        Floor = "floor",
        Ceil = "ceil",
        Round = "round",
        Frac = "frac",
        Mod = "mod",
        Real = "real",
        Imag = "imag",
        Conj = "conj",
        Angle = "angle",
        Isnan = "isnan",
        Isinf = "isinf",
        Isfinite = "isfinite",
        Float = "float",
        ScalarToHalf = "scalar_to_half",
        Int = "int",
        Int8 = "int8",
        Int16 = "int16",
        Int32 = "int32",
        Int64 = "int64",
        Uint8 = "uint8",
        Uint16 = "uint16",
        Uint32 = "uint32",
        Uint64 = "uint64",
        Saturate = "saturate",
        Lerp = "lerp",
        Factorial = "factorial",
        Clamp = "clamp",
        Periodize = "periodize",
        MirrorExt = "mirror_ext",
        And = "and",
        Or = "or",
        Xor = "xor",
        Shl = "shl",
        Shr = "shr",
        Not = "not",
        // Reductions.
        Sum = "sum",
        Prod = "prod",
        Mean = "mean",
        Min = "min",
        Max = "max",
        Cumsum = "cumsum",
        Cumprod = "cumprod",
        Dotprod = "dotprod",
        Any = "any",
        All = "all",
        Find = "find",
        // Conversions and type queries.
        Complex = "complex",
        Type = "type",
        Typename = "typename",
        Cast = "cast",
        Maxvalue = "maxvalue",
        Minvalue = "minvalue",
        Isreal = "isreal",
        Iscomplex = "iscomplex",
        Isscalar = "isscalar",
        Isvector = "isvector",
        Ismatrix = "ismatrix",
        Iscube = "iscube",
        // Linear algebra and transforms.
        Transpose = "transpose",
        HermTranspose = "herm_transpose",
        Inv = "inv",
        Svd = "svd",
        Det = "det",
        Linsolve = "linsolve",
        Chol = "chol",
        Symeig = "symeig",
        Irealfft1 = "irealfft1",
        Irealfft2 = "irealfft2",
        Irealfft3 = "irealfft3",
        Fft1 = "fft1",
        Ifft1 = "ifft1",
        Fft2 = "fft2",
        Ifft2 = "ifft2",
        Fft3 = "fft3",
        Ifft3 = "ifft3",
        // Strings, printing, files, images, timing.
        Print = "print",
        Unassert = "unassert",
        Assert = "assert",
        Sprintf = "sprintf",
        Printf = "printf",
        Fprintf = "fprintf",
        Sscanf = "sscanf",
        Num2str = "num2str",
        String = "string",
        Strcat = "strcat",
        Fromascii = "fromascii",
        Fromunicode = "fromunicode",
        Toascii = "toascii",
        Tounicode = "tounicode",
        Imread = "imread",
        Imwrite = "imwrite",
        Imshow = "imshow",
        Plot = "plot",
        Title = "title",
        Xlabel = "xlabel",
        Ylabel = "ylabel",
        Legend = "legend",
        Xlim = "xlim",
        Ylim = "ylim",
        Disp = "disp",
        Pause = "pause",
        Load = "load",
        Save = "save",
        Dir = "dir",
        Tic = "tic",
        Toc = "toc",
        Hold = "hold",
        Eval = "eval",
        Fopen = "fopen",
        Fread = "fread",
        Fwrite = "fwrite",
        Fclose = "fclose",
        Fgets = "fgets",
        Object = "object",
        Mat2cell = "mat2cell",
        Cell2mat = "cell2mat",
        // Shared memory, barriers, launch configuration.
        Shared = "shared",
        SharedZeros = "shared_zeros",
        Syncthreads = "syncthreads",
        Syncthread = "syncthread",
        Memfence = "memfence",
        MaxBlockSize = "max_block_size",
        OptBlockSize = "opt_block_size",
        OptBlockCnt = "opt_block_cnt",
        GpuFeature = "gpu_feature",
        // Runtime control (manual §16.7, §17.2.5, `sema/builtins/runtime.rs`): `schedule`, and
        // the code attributes `{!sched}`, `{!alloc}` and `{!transfer}`, which the type checker
        // lowers to calls of these (their names cannot be written as calls).
        Schedule = "schedule",
        SchedAttr = "{!sched}",
        AllocAttr = "{!alloc}",
        TransferAttr = "{!transfer}",
    }
    group_methods {
        GroupSync = "sync",
        GroupPartition = "partition",
        GroupShfl = "shfl",
        GroupShflUp = "shfl_up",
        GroupShflDown = "shfl_down",
        GroupShflXor = "shfl_xor",
        GroupAll = "all",
        GroupAny = "any",
        GroupBallot = "ballot",
        GroupMatchAny = "match_any",
        GroupMatchAll = "match_all",
    }
    meta {
        MetaCheck = "$check",
        MetaStr = "$str",
        MetaEval = "$eval",
        MetaSimplify = "$simplify",
        MetaUbound = "$ubound",
        MetaInline = "$inline",
        MetaSpecialize = "$specialize",
        MetaTarget = "$target",
        MetaFtype = "$ftype",
        MetaNops = "$nops",
        MetaAssump = "$assump",
        MetaSubs = "$subs",
        MetaOp = "$op",
        MetaArgs = "$args",
        MetaTyperecon = "$typerecon",
    }
}

impl std::fmt::Display for Builtin {
    /// The name as the IR dump shows it (`thread_block.shfl` for a method).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            BuiltinKind::GroupMethod => write!(f, "thread_block.{}", self.name()),
            _ => f.write_str(self.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique_per_kind() {
        for &b in Builtin::ALL {
            let back = match b.kind() {
                BuiltinKind::Function => Builtin::function(b.name()),
                BuiltinKind::GroupMethod => Builtin::group_method(b.name()),
                BuiltinKind::Meta => Builtin::meta(b.name()),
            };
            assert_eq!(back, Some(b), "{b:?}");
        }
        assert_eq!(Builtin::function("sync"), None);
        assert_eq!(Builtin::group_method("sync"), Some(Builtin::GroupSync));
        assert_eq!(Builtin::GroupShflDown.to_string(), "thread_block.shfl_down");
    }

    #[test]
    fn every_function_has_exactly_one_signature_and_every_signature_a_builtin() {
        let table = crate::sema::builtins::table();
        for &b in Builtin::ALL.iter().filter(|b| b.kind() == BuiltinKind::Function) {
            let n = table.iter().filter(|s| s.builtin == b).count();
            assert_eq!(n, 1, "`{}` has {n} signatures", b.name());
        }
        for s in table {
            assert_eq!(s.builtin.kind(), BuiltinKind::Function, "{}", s.name);
            assert_eq!(s.builtin.name(), s.name);
        }
    }
}
