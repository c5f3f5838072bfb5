//! Unit tests per instruction group. Expected values are those the PTX ISA states (its
//! semantics sections and notes), or IEEE 754 where the ISA defers to it; they are written
//! out, not computed by the code under test.

mod control;
mod cvt;
mod float;
mod int;
mod memory;
mod parse;
mod warp;

use crate::{Error, Globals, Launch, Module, Options, Region, Report};

pub(crate) const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

/// Registers every test kernel declares.
pub(crate) const REGS: &str = "\t.reg .pred %p<16>;\n\t.reg .b16 %h<16>;\n\t.reg .b32 %r<64>;\n\
                               \t.reg .b64 %rd<64>;\n\t.reg .f32 %f<32>;\n\t.reg .f64 %fd<32>;\n";

/// A module from a body of PTX after the header.
pub(crate) fn module(src: &str) -> Module {
    let text = format!("{HEADER}{src}");
    Module::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A buffer of 64-bit words the kernel may write: its pointer parameter and its region.
pub(crate) fn arg(v: &mut [u64], name: &str) -> (Vec<u8>, Region) {
    let p = v.as_mut_ptr() as u64;
    (p.to_le_bytes().to_vec(), Region { addr: p, len: v.len() * 8, name: name.into() })
}

/// Runs entry `k` of `m` with `params` (bytes each) over `grid` x `block`.
pub(crate) fn run(
    m: &Module,
    grid: [u32; 3],
    block: [u32; 3],
    params: &[Vec<u8>],
    buffers: &[Region],
    opts: &Options,
) -> Result<Report, Error> {
    let g = Globals::new(m);
    let l = Launch { entry: "k", grid, block, dynamic_shared: 0, params, buffers };
    // SAFETY: the buffers are the callers' live vectors, untouched during the call.
    unsafe { m.launch(&g, &l, opts) }
}

/// Each thread `t` of one block of `inputs.len()` threads gets `inputs[t]` in `%rd10`,
/// `%rd11`, `%rd12`, runs `body`, and its `%rd20` is returned (with the launch's report).
/// `extra` are further buffers the body may access.
pub(crate) fn eval_ext(
    body: &str,
    inputs: &[[u64; 3]],
    opts: &Options,
    extra: &[Region],
) -> (Vec<u64>, Report) {
    let src = format!(
        ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{{\n{REGS}\
         \tld.param.u64 %rd1, [k_in];\n\tld.param.u64 %rd2, [k_out];\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 24;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.u64 %rd10, [%rd4];\n\tld.global.u64 %rd11, [%rd4+8];\n\
         \tld.global.u64 %rd12, [%rd4+16];\n\tmov.u64 %rd20, 0;\n{body}\n\
         \tmul.wide.u32 %rd3, %r1, 8;\n\tadd.s64 %rd5, %rd2, %rd3;\n\tst.global.u64 [%rd5], %rd20;\n\
         \tret;\n}}\n"
    );
    let m = module(&src);
    let mut input: Vec<u64> = inputs.iter().flatten().copied().collect();
    let mut out = vec![0u64; inputs.len()];
    let (pi, ri) = arg(&mut input, "in");
    let (po, ro) = arg(&mut out, "out");
    let mut regions = vec![ri, ro];
    regions.extend_from_slice(extra);
    let r = run(&m, [1, 1, 1], [inputs.len() as u32, 1, 1], &[pi, po], &regions, opts)
        .unwrap_or_else(|e| panic!("{e}"));
    (out, r)
}

pub(crate) fn eval_with(body: &str, inputs: &[[u64; 3]], opts: &Options) -> (Vec<u64>, Report) {
    eval_ext(body, inputs, opts, &[])
}

pub(crate) fn eval(body: &str, inputs: &[[u64; 3]]) -> Vec<u64> {
    eval_with(body, inputs, &Options::default()).0
}

/// `op` on f32 operands (`%f1`, `%f2`, `%f3` from the inputs' low words) into `%f4`.
pub(crate) fn f32_op(op: &str, inputs: &[[f32; 3]]) -> Vec<u32> {
    let body = format!(
        "\tcvt.u32.u64 %r2, %rd10;\n\tmov.b32 %f1, %r2;\n\tcvt.u32.u64 %r3, %rd11;\n\tmov.b32 %f2, %r3;\n\
         \tcvt.u32.u64 %r4, %rd12;\n\tmov.b32 %f3, %r4;\n\t{op};\n\tmov.b32 %r5, %f4;\n\
         \tcvt.u64.u32 %rd20, %r5;"
    );
    let ins: Vec<[u64; 3]> = inputs.iter().map(|i| i.map(|x| u64::from(x.to_bits()))).collect();
    eval(&body, &ins).into_iter().map(|v| v as u32).collect()
}

/// `op` on f64 operands `%fd1`, `%fd2`, `%fd3` into `%fd4`.
pub(crate) fn f64_op(op: &str, inputs: &[[f64; 3]]) -> Vec<u64> {
    let body = format!(
        "\tmov.b64 %fd1, %rd10;\n\tmov.b64 %fd2, %rd11;\n\tmov.b64 %fd3, %rd12;\n\t{op};\n\
         \tmov.b64 %rd20, %fd4;"
    );
    let ins: Vec<[u64; 3]> = inputs.iter().map(|i| i.map(f64::to_bits)).collect();
    eval(&body, &ins)
}

/// `op` on 32-bit integer operands `%r10`, `%r11`, `%r12` into `%r13`.
pub(crate) fn i32_op(op: &str, inputs: &[[u32; 3]]) -> Vec<u32> {
    let body = format!(
        "\tcvt.u32.u64 %r10, %rd10;\n\tcvt.u32.u64 %r11, %rd11;\n\tcvt.u32.u64 %r12, %rd12;\n\
         \t{op};\n\tcvt.u64.u32 %rd20, %r13;"
    );
    let ins: Vec<[u64; 3]> = inputs.iter().map(|i| i.map(u64::from)).collect();
    eval(&body, &ins).into_iter().map(|v| v as u32).collect()
}

/// A predicate `%p1` computed by `op` from f32 operands `%f1`, `%f2`, as 0 or 1.
pub(crate) fn f32_pred(op: &str, inputs: &[[f32; 2]]) -> Vec<bool> {
    let body = format!("{op};\n\tselp.f32 %f4, 0f3F800000, 0f00000000, %p1");
    let ins: Vec<[f32; 3]> = inputs.iter().map(|i| [i[0], i[1], 0.0]).collect();
    f32_op(&body, &ins).into_iter().map(|b| b == 1f32.to_bits()).collect()
}
