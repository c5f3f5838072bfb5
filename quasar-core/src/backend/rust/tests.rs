//! Shapes of generated code that the end-to-end tests cannot see: which copies of a kernel's
//! block function exist and what they call.

use crate::driver::{compile, BackEnd, Options};

/// The Rust items of `src`, through the driver.
fn rust_of(src: &str) -> String {
    let opts = Options { back_ends: vec![BackEnd::Rust], ..Options::new("t.q", src, "t.q") };
    let (art, _) = compile(&opts);
    assert!(!art.has_errors(), "{:?}", art.diagnostics);
    art.rust.expect("Rust items").to_string()
}

#[test]
fn kernels_with_pow_get_a_fused_copy_for_fma_cpus() {
    let code = rust_of(
        "function [] = __kernel__ g(x : vec, y : vec, pos : int)
             y[pos] = x[pos] ^ 0.45
         endfunction
         function [] = run(x : vec, y : vec)
             parallel_do(numel(x), x, y, g)
         endfunction",
    );
    // One generic hot loop, instantiated without and with fused math.
    assert!(code.contains("fn rows < const __F : bool >"), "{code}");
    assert!(code.contains("pow_sel :: < __F , _ >"), "{code}");
    assert!(code.contains("rows :: < true >") && code.contains("rows :: < false >"), "{code}");
    // The border copy calls the unfused routine.
    assert!(code.contains("rt :: pow ("), "{code}");
}

#[test]
fn kernels_without_fusable_math_have_one_block_function() {
    let code = rust_of(
        "function [] = __kernel__ s(x : vec, y : vec, pos : int)
             y[pos] = 2 * x[pos] + 1
         endfunction
         function [] = run(x : vec, y : vec)
             parallel_do(numel(x), x, y, s)
         endfunction",
    );
    assert!(!code.contains("__F"), "{code}");
    // It vectorises: an AVX2+FMA copy (no AVX-512 copy is ever compiled).
    assert!(code.contains("unsafe fn rows_avx2"), "the AVX2 copy: {code}");
    assert!(!code.contains("avx512"), "no AVX-512 copy: {code}");
}

#[test]
fn only_the_hot_loop_is_multiversioned_and_the_border_is_emitted_once() {
    let code = rust_of(
        "function [] = __kernel__ b(x : mat'mirror, y : mat, pos : ivec2)
             y[pos] = x[pos[0], pos[1] - 1] + x[pos[0], pos[1] + 1]
         endfunction
         function [] = run(x : mat, y : mat)
             parallel_do(size(x), x, y, b)
         endfunction",
    );
    // One module per kernel, with its own codegen unit.
    assert!(code.contains("mod __q_b_"), "{code}");
    // The border (mirrored reads) once, out of line; the interior in the row versions.
    // Two mirrored reads, each one runtime call.
    assert_eq!(code.matches("Mode :: Mirror").count(), 2, "{code}");
    let rows = &code[code.find("fn rows").unwrap()..code.find("fn thread").unwrap()];
    assert!(!rows.contains("Mirror"), "{rows}");
    assert!(rows.contains("read_at"), "{rows}");
    assert_eq!(code.matches("fn thread").count(), 1, "{code}");
    assert!(code.contains("# [inline (never)] fn thread"), "{code}");
    // A loop that vectorises without math routines: the AVX2+FMA copy only.
    assert_eq!(code.matches("target_feature").count(), 1, "{code}");
    assert!(code.contains("unsafe fn rows_avx2"), "{code}");
    assert!(!code.contains("rows_avx512"), "{code}");
    // No baseline copy of the hot loop on x86-64 unless the `x86-baseline-copies` feature
    // asks for one: CPUs without AVX2+FMA run the border code over whole rows (`__split`
    // false); other targets compile `rows` itself.
    assert!(code.contains("x86_baseline_copies ! ((rows , true) , (thread , false))"), "{code}");
    assert!(code.contains("# [cfg (not (target_arch = \"x86_64\"))] let (__rows , __split) : (Rows , bool) = (rows , true) ;"), "{code}");
}

#[test]
fn cpu_feature_copies_only_where_the_hot_loop_vectorises() {
    let code = rust_of(
        "function [] = __kernel__ taps(x : mat'mirror, y : mat, w : vec, pos : ivec2)
             acc = x[pos]
             while acc < 4.0
                 acc = acc * acc + w[0]
             endwhile
             y[pos] = acc
         endfunction
         function [] = __kernel__ gam(x : mat, y : mat, pos : ivec2)
             y[pos] = x[pos] ^ 0.45
         endfunction
         function [] = run(x : mat, y : mat, w : vec)
             parallel_do(size(x), x, y, w, taps)
             parallel_do(size(x), x, y, gam)
         endfunction",
    );
    // Each kernel's module, up to the next item after it.
    let module = |name: &str| {
        let at = code.find(&format!("mod __q_{name}_")).unwrap();
        let len = code[at..].find("static __Q_KERNEL").unwrap();
        &code[at..at + len]
    };
    let (taps, gam) = (module("taps"), module("gam"));
    // A float carried by a `while` loop (no strips: a branch per position): scalar code in
    // every version, so one.
    assert!(!taps.contains("target_feature") && !taps.contains("pick"), "{taps}");
    assert!(taps.contains("let (__rows , __split) : (Rows , bool) = (rows , true) ;"), "{taps}");
    // Fusable math (`pow`): the AVX2+FMA copy calls the fused routines (`rows::<true>`),
    // picked at run time; no AVX-512 copy.
    assert!(gam.contains("unsafe fn rows_avx2") && !gam.contains("avx512"), "{gam}");
    assert!(gam.contains("rows :: < true > (__ctx , __e , __q)"), "{gam}");
    assert!(gam.contains("(rows_avx2 , true)") && gam.contains("(thread , false)"), "{gam}");
    // CPUs without AVX2+FMA: a baseline copy only with the `x86-baseline-copies` feature,
    // which `qstd::rt`'s macro reads in the user's build.
    assert!(
        gam.contains("x86_baseline_copies ! ((rows :: < false > , true) , (thread , false))"),
        "{gam}"
    );
}

#[test]
fn kernels_walking_arrays_across_rows_run_in_cpu_tiles() {
    let code = rust_of(
        "function [] = __kernel__ tr(x : mat, y : mat, pos : ivec2)
             y[pos[1], pos[0]] = x[pos]
         endfunction
         function [] = __kernel__ shift(x : mat, y : mat, w : vec, pos : ivec2)
             y[pos] = x[pos[0], pos[1] + 1] * w[pos[0]]
         endfunction
         function [] = run(x : mat, y : mat, w : vec)
             parallel_do(size(x), x, y, tr)
             parallel_do(size(x), x, y, w, shift)
         endfunction",
    );
    let builder = |name: &str| {
        let at = code.find(&format!("Kernel :: new (\"{name}")).unwrap();
        &code[at..at + code[at..].find(';').unwrap()]
    };
    assert!(builder("tr").contains("with_cpu_tiles"), "{}", builder("tr"));
    // Along rows, and a vector read per row of positions: whole rows.
    assert!(!builder("shift").contains("with_cpu_tiles"), "{}", builder("shift"));
}

#[test]
fn tap_loops_run_in_strips_of_positions_in_lockstep() {
    let code = rust_of(
        "function [] = __kernel__ taps(x : mat'mirror, y : mat, w : vec, pos : ivec2)
             acc = 0.0
             for i = 0..numel(w) - 1
                 acc += x[pos + [0, i]] * w[i]
             endfor
             y[pos] = acc
         endfunction
         function [] = run(x : mat, y : mat, w : vec)
             parallel_do(size(x), x, y, w, taps)
         endfunction",
    );
    let rows = &code[code.find("fn rows").unwrap()..code.find("fn rows_avx2").unwrap()];
    // Strips of 32 positions: the sum per lane, the tap loop's header once per strip, around
    // one loop over the lanes.
    assert!(rows.contains("let __p1 = __s . min (__hi - 32usize) ;"), "{rows}");
    assert!(rows.contains(": [f32 ; 32usize] = [0f32 ; 32usize]"), "{rows}");
    let taps = &rows[rows.find("for __i in").unwrap()..];
    assert!(taps.contains("q_i_5 = __i as i32 ; for __l in 0 .. 32usize"), "{rows}");
    assert!(rows.contains("let __p1 = __p1 + __l ;"), "{rows}");
    // A segment shorter than a strip runs the border code (compiled anyway), so there is no
    // `rest` function; the strips vectorise, so they get the AVX2 copy.
    assert!(
        rows.contains("if __hi . saturating_sub (__lo) < 32usize { thread (__ctx , __e , [__p0 , __lo , __hi]) ?"),
        "{rows}"
    );
    assert!(!code.contains("fn rest"), "{code}");
    assert!(code.contains("unsafe fn rows_avx2") && !code.contains("avx512"), "{code}");
}

#[test]
fn loops_reading_what_two_rows_share_run_in_row_pairs() {
    let code = rust_of(
        "function [] = __kernel__ mm(a : mat, b : mat, c : mat, pos : ivec2)
             s = 0.0
             for k = 0..size(a, 1) - 1
                 s += a[pos[0], k] * b[k, pos[1]]
             endfor
             c[pos] = s
         endfunction
         function [] = __kernel__ taps(x : mat'mirror, y : mat, w : vec, pos : ivec2)
             acc = 0.0
             for i = 0..numel(w) - 1
                 acc += x[pos + [i, 0]] * w[i]
             endfor
             y[pos] = acc
         endfunction
         function [] = run(a : mat, b : mat, c : mat, w : vec)
             parallel_do(size(c), a, b, c, mm)
             parallel_do(size(c), a, c, w, taps)
         endfunction",
    );
    let module = |name: &str| {
        let at = code.find(&format!("mod __q_{name}")).unwrap();
        &code[at..at + code[at..].find("static __Q_KERNEL").unwrap()]
    };
    let (mm, taps) = (module("mm"), module("taps"));
    // The product's strips hold two rows: the sum per row and lane, a loop over the rows
    // around the loop over the lanes, the rows paired by `block_row_pairs`.
    let rows2 = &mm[mm.find("fn rows2").unwrap()..mm.find("fn rows2_avx2").unwrap()];
    assert!(rows2.contains(": [[f32 ; 32usize] ; 2] = [[0f32 ; 32usize] ; 2]"), "{rows2}");
    assert!(
        rows2.contains("for __r in 0 .. 2usize { let __p0 = __p0 + __r ; for __l in 0 .. 32usize"),
        "{rows2}"
    );
    assert!(rows2.contains("q_s_4 [__r] [__l] = (q_s_4 [__r] [__l]"), "{rows2}");
    assert!(mm.contains("block_row_pairs") && mm.contains("rows2_avx2"), "{mm}");
    // Taps down the columns: the rows read different elements, one row per strip; every
    // read is at the position, offset along dimension 0 only, so interior rows merge.
    assert!(taps.contains("block_runs") && !taps.contains("rows2"), "{taps}");
}

#[test]
fn branches_run_in_strips() {
    let code = rust_of(
        "function [] = __kernel__ sig(x : mat'clamped, y : mat, r : int, t : scalar, pos : ivec2)
             c = x[pos]
             s = 0.0
             for i = -r..r
                 if i != 0
                     v = x[pos[0], pos[1] + i]
                     if abs(v - c) < t
                         s += v
                     endif
                 endif
             endfor
             y[pos] = s
         endfunction
         function [] = run(x : mat, y : mat)
             parallel_do(size(x), x, y, 2, 0.5, sig)
         endfunction",
    );
    let rows = &code[code.find("fn rows").unwrap()..code.find("fn rows_avx2").unwrap()];
    // The uniform condition once per strip, around the lanes; the varying one in each lane,
    // what it assigns per lane.
    assert!(
        rows.contains("if (((q_i_7 != 0i32) as i32) != 0i32) { for __l in 0 .. 32usize {"),
        "{rows}"
    );
    assert!(
        rows.contains("if (((__qrt :: qstd :: rt :: abs ((q_v_8 [__l] - q_c_5 [__l])) < q_t_3)"),
        "{rows}"
    );
    assert!(rows.contains("{ q_s_6 [__l] = (q_s_6 [__l] + q_v_8 [__l]) ; }"), "{rows}");
}

#[test]
fn pointwise_kernels_over_cubes_get_a_flat_loop() {
    let flat = rust_of(
        "function [] = __kernel__ p(x : cube, y : cube, pos : ivec3)
             y[pos] = 2 * x[pos]
         endfunction
         function [] = run(x : cube, y : cube)
             parallel_do(size(x), x, y, p)
         endfunction",
    );
    // Every access at the position: the rows of a block merge too (flat indices past a row).
    assert!(
        flat.contains("block_runs") && flat.contains("& [q_x_0 . shape () , q_y_1 . shape ()]"),
        "{flat}"
    );
    // `pos[2]` used on its own: the channel matters, no flat loop.
    let not_flat = rust_of(
        "function [] = __kernel__ q(x : cube, y : cube, pos : ivec3)
             y[pos] = x[pos] * pos[2]
         endfunction
         function [] = run(x : cube, y : cube)
             parallel_do(size(x), x, y, q)
         endfunction",
    );
    assert!(not_flat.contains(":: core :: option :: Option :: None"), "{not_flat}");
}

#[test]
fn double_mode_decides_scalar_and_messages_spell_it_as_written() {
    let src = "function y : vec = twice(x : vec, s : scalar'single)
                   y = 2 * x + s
               endfunction";
    for (double, elem) in [(false, "f32"), (true, "f64")] {
        let opts =
            Options { back_ends: vec![BackEnd::Rust], double, ..Options::new("t.q", src, "t.q") };
        let (art, _) = compile(&opts);
        assert!(!art.has_errors(), "{:?}", art.diagnostics);
        let code = art.rust.expect("Rust items").to_string();
        // `x : vec` is an array of the mode's float; `s : scalar'single` stays `f32`.
        assert!(
            code.contains(&format!("x : & :: quasar :: __rt :: run :: Array < {elem} >")),
            "{code}"
        );
        assert!(code.contains("s : f32"), "{code}");
        // The run-time rank check names the type as the source wrote it.
        assert!(code.contains("\"argument `x` of `twice`\" , \"vec\""), "{code}");
    }
}

#[test]
fn comparisons_promote_number_types_as_the_ptx_back_end() {
    use super::ty::Num;
    assert_eq!(Num::promote(Num::I32, Num::F32), Num::F32);
    assert_eq!(Num::promote(Num::F64, Num::F32), Num::F64);
    assert_eq!(Num::promote(Num::F16, Num::I8), Num::F16);
    assert_eq!(Num::promote(Num::C32, Num::F64), Num::C64);
    assert_eq!(Num::promote(Num::U8, Num::I16), Num::I32);
    assert_eq!(Num::promote(Num::U8, Num::U8), Num::U8);
}

#[test]
fn infinite_and_overflowing_constants_are_named_constants() {
    let code = rust_of(
        "function [a : scalar, b : scalar'double, c : scalar] = f()
             a = -inf
             b = inf
             c = 1e300
         endfunction",
    );
    // (`inf` is a single-precision constant, converted for `b`; `1e300` overflows `f32`.)
    assert!(code.contains("= f32 :: NEG_INFINITY ;"), "{code}");
    assert!(code.contains("= (f32 :: INFINITY as f64) ;"), "{code}");
    assert!(code.contains("= f32 :: INFINITY ;"), "{code}");
}

#[test]
fn outputs_combine_in_lanes_only_when_every_assignment_has_one_regroupable_operator() {
    let code = rust_of(
        "function [s : scalar, m : scalar] = __kernel__ k(x : vec, pos : int)
             s += x[pos]
             m += x[pos]
             m ^^= x[pos]
         endfunction
         function [s, m] = run(x : vec)
             [s, m] = parallel_do(numel(x), x, k)
         endfunction",
    );
    // `s` in 64 lanes, folded after the row; `m` (two operators) in one running value.
    assert!(
        code.contains(
            "Lanes :: < f32 , 64usize > :: new (__slot0 . get () , __qrt :: run :: Reduce :: Sum)"
        ),
        "{code}"
    );
    assert!(code.contains("__out1 = :: core :: cell :: Cell :: new (__slot1 . get ())"), "{code}");
    assert!(code.contains("lanes :: < 64usize > (__lo , __hi , | __p0 , __l |"), "{code}");
    assert!(code.contains("__slot0 . set (__out0 . fold ())"), "{code}");
}

#[test]
fn accumulated_only_arguments_get_a_private_copy_per_block() {
    let code = rust_of(
        "function [] = __kernel__ h(x : vec, bins : vec, pos : int)
             bins[int(x[pos] * 7.0)] += 1.0
         endfunction
         function [] = __kernel__ r(x : vec, bins : vec, pos : int)
             bins[int(x[pos] * 7.0)] += bins[0]
         endfunction
         function [] = run(x : vec, bins : vec)
             parallel_do(numel(x), x, bins, h)
             parallel_do(numel(x), x, bins, r)
         endfunction",
    );
    let (h, r) = code.split_at(code.find("mod __q_r_").unwrap());
    // `h` only adds into `bins`: a private copy when the block is large, merged at its end.
    assert!(h.contains("private_buf") && h.contains("private_merge"), "{h}");
    assert!(h.contains("acc_add (q_bins_1__pv"), "{h}");
    assert!(!h.contains("atomic :: add"), "{h}");
    // `r` reads `bins` too: its updates stay atomic.
    assert!(!r.contains("private_buf") && r.contains("atomic :: add"), "{r}");
}

#[test]
fn a_cell_of_device_functions_given_to_a_kernel_is_named_as_unsupported() {
    // Host code keeps cells of function values as dynamic values; kernels take arrays of
    // numbers and single function values only.
    let src = "function y = run(t : scalar)
                   fs : vec[[__device__ scalar -> scalar]] = {__device__ (x : scalar) -> x + 1}
                   y = zeros(4)
                   parallel_do(4, y, fs, __kernel__ (y : vec, fs : vec[[__device__ scalar -> scalar]], pos : int) -> y[pos] = fs[0](t))
               endfunction";
    let opts = Options { back_ends: vec![BackEnd::Rust], ..Options::new("t.q", src, "t.q") };
    let (art, _) = compile(&opts);
    let errors: Vec<&str> =
        art.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert!(errors.iter().any(|m| m.contains("arrays of [__device__ (scalar")), "{errors:?}");
    // The way out: a cell literal, taken element by element (`sema/check/device_fn_cells.rs`).
    let note = art.diagnostics.iter().flat_map(|d| &d.notes).any(|n| n.contains("with a literal"));
    assert!(note, "{:?}", art.diagnostics);
}

#[test]
fn a_device_image_value_capturing_its_own_type_given_to_a_kernel_is_named_as_unsupported() {
    // `moved` makes an image value capturing an image value (an enum holding itself, boxed,
    // so not plain data); `draw` gives such a value to a kernel.
    let src = "type image : [__device__ ivec2'const -> vec3]
moved : [(image, ivec2) -> image] = (x, s) -> __device__ (pos) -> x(pos + s)
function y = draw(x : image)
    y = zeros(4, 4, 3)
    parallel_do([4, 4], __kernel__ (pos : ivec2) -> y[pos[0], pos[1], 0..2] = x(pos))
endfunction
function y = run(t : scalar)
    y = draw(moved(__device__ (pos : ivec2'const) -> [t, t, t], [1, 0]))
endfunction
";
    let opts = Options { back_ends: vec![BackEnd::Rust], ..Options::new("t.q", src, "t.q") };
    let (art, _) = compile(&opts);
    let errors: Vec<&str> =
        art.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.as_str()).collect();
    assert!(
        errors.iter().any(|m| m.contains("the function value `x`") && m.contains("their own type")),
        "{errors:?}"
    );
}

#[test]
fn arrays_of_run_time_size_in_kernels_are_per_thread_allocations() {
    let r = rust_of(
        "function [] = __kernel__ k(y : vec, n : int, pos : int)
             a = zeros(n, 3)
             a[0, 1] = 2.0
             y[pos] = a[0, 1] + numel(a)
         endfunction
         function y = f(n : int)
             y = zeros(8)
             parallel_do(8, y, n, k)
         endfunction",
    );
    // The arena is declared with the thread's locals, the array allocated into it.
    assert!(r.contains("KernelArena"), "{r}");
    assert!(r.contains("kernel_alloc"), "{r}");
}

/// The errors of `src` through the driver's Rust back end.
fn rust_errors(src: &str) -> Vec<String> {
    let opts = Options { back_ends: vec![BackEnd::Rust], ..Options::new("t.q", src, "t.q") };
    let (art, _) = compile(&opts);
    art.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect()
}

#[test]
fn a_class_named_without_its_implicit_arguments_is_the_one_instance_built() {
    // The manual's interface emulation (§7.7): `^iface` inside and outside the class.
    let code = rust_of(
        "type iface : mutable class
           f : [(^iface) -> ??]
           n : int
         endtype
         function c = g()
           obj = iface(f := (s : ^iface) -> (s.n += 1), n := 0)
           obj.f(obj)
           c = obj.n
         endfunction",
    );
    assert!(code.contains("pub fn g"), "{code}");
    // Built with two different function values, the bare name is ambiguous.
    let errors = rust_errors(
        "type iface : mutable class
           f : [(^iface) -> ??]
           n : int
         endtype
         function c = g()
           a = iface(f := (s : ^iface) -> (s.n += 1), n := 0)
           b = iface(f := (s : ^iface) -> 2.5, n := 0)
           a.f(a)
           b.f(b)
           c = a.n
         endfunction",
    );
    assert!(
        errors.iter().any(|e| e.contains("`iface` is named without the types of its function fields, and this module builds it with 2 different ones")),
        "{errors:?}"
    );
}
