//! One kernel entry: the emitter's state, the parameter ABI (see `mod.rs`), the special
//! parameters, and the assembly of the `.entry` text.

use super::regs::{small_vec, ArrRef, NumTy, Reg, RegClass, Space, Val};
use super::walk::walk_block;
use super::{unsupported, PtxCheckSite, PtxKernel, PtxOptions, PtxParam, PtxParamRole, Res};
use crate::ir::{self, ExprKind, FunctionId, LocalId, LocalRole, Module, StmtKind};
use crate::sema::types::{Access, Rank, Type};
use crate::span::Span;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The locals of one function being emitted (the kernel, or an inlined device function).
pub(super) struct Frame<'m> {
    pub func: &'m ir::Function,
    pub locals: HashMap<LocalId, Val>,
    /// Where `return` jumps.
    pub ret_label: String,
    /// `loops.len()` when the frame was entered: `break` cannot leave a function.
    pub loop_base: usize,
}

/// The state of the emitter for one kernel.
pub(super) struct Ctx<'m> {
    pub module: &'m Module,
    pub opts: &'m PtxOptions,
    pub entry: String,
    pub code: String,
    counts: [u32; 5],
    labels: u32,
    pub frames: Vec<Frame<'m>>,
    /// `(continue label, break label)` of the enclosing loops.
    pub loops: Vec<(String, String)>,
    pub shared_decls: Vec<String>,
    /// `'checked` sites of this kernel, numbered from `site_base`.
    pub sites: Vec<PtxCheckSite>,
    pub site_base: usize,
    /// The kernel uses barriers: no early exit of threads past the launch edge.
    pub uses_sync: bool,
    pub block_sensitive: bool,
    /// The launch dimensions (`u32`).
    pub dims: Vec<Reg>,
}

impl<'m> Ctx<'m> {
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let c = &mut self.counts[class.index()];
        *c += 1;
        Reg { class, id: *c }
    }

    pub fn ins(&mut self, line: impl AsRef<str>) {
        self.code.push('\t');
        self.code.push_str(line.as_ref());
        self.code.push_str(";\n");
    }

    pub fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L__{}", self.labels)
    }

    pub fn place(&mut self, label: &str) {
        let _ = writeln!(self.code, "{label}:");
    }

    pub fn frame(&self) -> Res<&Frame<'m>> {
        match self.frames.last() {
            Some(f) => Ok(f),
            None => unsupported(Span::default(), "code outside a function"),
        }
    }

    pub fn frame_mut(&mut self) -> Res<&mut Frame<'m>> {
        match self.frames.last_mut() {
            Some(f) => Ok(f),
            None => unsupported(Span::default(), "code outside a function"),
        }
    }

    /// A register holding the constant `v` of type `t`.
    pub fn imm(&mut self, t: NumTy, v: f64) -> Reg {
        let r = self.reg(t.class());
        self.ins(format!("mov.{} {r}, {}", t.arith(), t.imm(v)));
        r
    }

    /// A register holding the integer constant `v` of type `t`.
    pub fn imm_int(&mut self, t: NumTy, v: i64) -> Reg {
        let r = self.reg(t.class());
        self.ins(format!("mov.{} {r}, {}", t.arith(), t.imm_int(v)));
        r
    }

    /// `.reg` declarations of every register used.
    fn reg_decls(&self) -> String {
        let mut s = String::new();
        for c in RegClass::ALL {
            let n = self.counts[c.index()];
            if n > 0 {
                let _ = writeln!(s, "\t.reg {} {}<{}>;", c.decl_type(), c.prefix(), n + 1);
            }
        }
        s
    }
}

const SPECIALS: [&str; 6] = ["pos", "blkpos", "blkidx", "blkdim", "blkcnt", "warpsize"];

/// Emits kernel `id` as the entry `entry`; its `'checked` sites are numbered from `site_base`.
pub(super) fn emit_kernel(
    module: &Module,
    id: FunctionId,
    entry: &str,
    opts: &PtxOptions,
    site_base: usize,
    sites_out: &mut Vec<PtxCheckSite>,
) -> Res<(String, PtxKernel)> {
    let Some(f) = module.functions.get(id.0 as usize) else {
        return unsupported(Span::default(), "a kernel missing from the module");
    };
    let rank = launch_rank(module, id, f)?;
    let mut cx = Ctx {
        module,
        opts,
        entry: entry.to_string(),
        code: String::new(),
        counts: [0; 5],
        labels: 0,
        frames: Vec::new(),
        loops: Vec::new(),
        shared_decls: Vec::new(),
        sites: Vec::new(),
        site_base,
        uses_sync: false,
        block_sensitive: false,
        dims: Vec::new(),
    };
    let mut scan = Scan::default();
    scan.function(module, f, &mut Vec::new());
    cx.uses_sync = scan.sync;
    cx.block_sensitive = scan.sync || scan.shared;
    let exit = cx.label();
    cx.frames.push(Frame {
        func: f,
        locals: HashMap::new(),
        ret_label: exit.clone(),
        loop_base: 0,
    });

    let mut params = Vec::new();
    for d in 0..rank {
        let name = format!("{entry}_dim{d}");
        let r = cx.reg(RegClass::B32);
        cx.ins(format!("ld.param.u32 {r}, [{name}]"));
        cx.dims.push(r);
        params.push(PtxParam {
            name,
            ty: ".u32".into(),
            bytes: 4,
            role: PtxParamRole::LaunchDim { dim: d },
        });
    }
    let args: Vec<LocalId> = f
        .params
        .iter()
        .filter(|p| f.locals.get(p.0 as usize).is_some_and(|l| l.role != LocalRole::Special))
        .chain(f.captures.iter())
        .copied()
        .collect();
    for (arg, &lid) in args.iter().enumerate() {
        let v = bind_arg(&mut cx, f, lid, arg, &mut params)?;
        cx.frame_mut()?.locals.insert(lid, v);
    }
    for (k, &lid) in f.outputs.iter().enumerate() {
        let local = local(f, lid)?;
        let Some(t) = NumTy::of(&local.ty, opts) else {
            return unsupported(local.span, format!("an output argument of type {}", local.ty));
        };
        let name = format!("{entry}_out{k}");
        let r = cx.reg(RegClass::B64);
        cx.ins(format!("ld.param.u64 {r}, [{name}]"));
        cx.ins(format!("cvta.to.global.u64 {r}, {r}"));
        params.push(PtxParam {
            name,
            ty: ".u64".into(),
            bytes: 8,
            role: PtxParamRole::Output { output: k },
        });
        cx.frame_mut()?.locals.insert(lid, Val::Output(r, t));
    }
    specials(&mut cx, f, rank, &exit)?;
    cx.init_vars(f)?;
    let body = &f.body;
    cx.block(body)?;
    cx.place(&exit);
    cx.ins("ret");

    let mut text = String::new();
    let _ = writeln!(text, "// {} ({})", f.name, f.instance_name);
    let _ = writeln!(text, ".visible .entry {entry}(");
    let decls: Vec<String> = params.iter().map(|p| format!("\t{}", p.declaration())).collect();
    let _ = writeln!(text, "{}\n)\n{{", decls.join(",\n"));
    text.push_str(&cx.reg_decls());
    for s in &cx.shared_decls {
        let _ = writeln!(text, "\t{s};");
    }
    text.push_str(&cx.code);
    text.push_str("}\n");
    sites_out.append(&mut cx.sites);
    let k = PtxKernel {
        instance_name: f.instance_name.clone(),
        entry: entry.to_string(),
        params,
        launch_rank: rank,
        block_sensitive: cx.block_sensitive,
    };
    Ok((text, k))
}

pub(super) fn local(f: &ir::Function, id: LocalId) -> Res<&ir::Local> {
    match f.locals.get(id.0 as usize) {
        Some(l) => Ok(l),
        None => unsupported(f.span, "a reference to an unknown local"),
    }
}

/// The parameters of launch argument `arg` (local `lid`) and its value in the kernel.
fn bind_arg(
    cx: &mut Ctx<'_>,
    f: &ir::Function,
    lid: LocalId,
    arg: usize,
    params: &mut Vec<PtxParam>,
) -> Res<Val> {
    let l = local(f, lid)?;
    let entry = cx.entry.clone();
    let name = format!("{entry}_a{arg}");
    match &l.ty {
        Type::Array(a) => {
            let Rank::Fixed(rank) = a.rank else {
                return unsupported(l.span, format!("the array `{}` of unknown rank", l.name));
            };
            let Some(elem) = NumTy::of(&a.elem, cx.opts) else {
                return unsupported(l.span, format!("arrays of {} (`{}`)", a.elem, l.name));
            };
            let ptr = cx.reg(RegClass::B64);
            cx.ins(format!("ld.param.u64 {ptr}, [{name}]"));
            cx.ins(format!("cvta.to.global.u64 {ptr}, {ptr}"));
            params.push(PtxParam {
                name: name.clone(),
                ty: ".u64".into(),
                bytes: 8,
                role: PtxParamRole::ArrayData { arg },
            });
            let mut dims = Vec::new();
            for d in 0..rank.max(1) as usize {
                let dn = format!("{name}_d{d}");
                let r = cx.reg(RegClass::B32);
                cx.ins(format!("ld.param.u32 {r}, [{dn}]"));
                dims.push(r);
                params.push(PtxParam {
                    name: dn,
                    ty: ".u32".into(),
                    bytes: 4,
                    role: PtxParamRole::ArrayExtent { arg, dim: d },
                });
            }
            let access = a.mods.access.unwrap_or(Access::Safe);
            Ok(Val::Array(ArrRef {
                ptr,
                dims,
                elem,
                access,
                space: Space::Global,
                name: l.name.clone(),
            }))
        }
        t => {
            let Some(nt) = NumTy::of(t, cx.opts) else {
                let what = match t {
                    Type::Function(_) => format!("the function-valued parameter `{}`", l.name),
                    t => format!("the parameter `{}` of type {t}", l.name),
                };
                return unsupported(l.span, what);
            };
            let r = cx.reg(nt.class());
            cx.ins(format!("ld.param.{} {r}, [{name}]", nt.mem()));
            params.push(PtxParam {
                name,
                ty: format!(".{}", nt.mem()),
                bytes: nt.bytes() as usize,
                role: PtxParamRole::Value { arg, by_bytes: false },
            });
            Ok(Val::Num(r, nt))
        }
    }
}

/// The number of launch dimensions: from the special parameters' types, else from the
/// `parallel_do` calls that launch the kernel.
fn launch_rank(module: &Module, id: FunctionId, f: &ir::Function) -> Res<usize> {
    let of_type = |t: &Type| -> Option<usize> {
        match t {
            Type::Int(..) => Some(1),
            Type::Array(a) if a.rank == Rank::Fixed(1) => match a.shape.as_deref() {
                Some([crate::sema::types::Dim::Known(n)]) if (1..=3).contains(n) => {
                    Some(*n as usize)
                }
                _ => None,
            },
            _ => None,
        }
    };
    for l in &f.locals {
        if l.role == LocalRole::Special && l.name != "warpsize" {
            return match of_type(&l.ty) {
                Some(n) => Ok(n),
                None => {
                    unsupported(l.span, format!("the special parameter `{}` : {}", l.name, l.ty))
                }
            };
        }
    }
    let mut found = None;
    for g in &module.functions {
        let mut scan = |e: &ir::Expr| {
            if let ExprKind::ParallelDo { dims, kernel, .. } = &e.kind {
                if *kernel == id && found.is_none() {
                    found = of_type(&dims.ty);
                }
            }
        };
        walk_block(&g.body, &mut |_| {}, &mut scan);
    }
    match found {
        Some(n) => Ok(n),
        None => unsupported(
            f.span,
            "a kernel whose launch rank is unknown (no `pos`-like parameter and no \
             `parallel_do` with typed dimensions)",
        ),
    }
}

/// Computes the special parameters and makes threads past the launch edge leave.
fn specials(cx: &mut Ctx<'_>, f: &ir::Function, rank: usize, exit: &str) -> Res<()> {
    let axis = |d: usize| ["x", "y", "z"][(rank - 1 - d).min(2)];
    let sreg = |cx: &mut Ctx<'_>, what: &str, d: usize| {
        let r = cx.reg(RegClass::B32);
        cx.ins(format!("mov.u32 {r}, %{what}.{}", axis(d)));
        r
    };
    let mut pos = Vec::new();
    for d in 0..rank {
        let t = sreg(cx, "tid", d);
        let c = sreg(cx, "ctaid", d);
        let n = sreg(cx, "ntid", d);
        let r = cx.reg(RegClass::B32);
        cx.ins(format!("mad.lo.s32 {r}, {c}, {n}, {t}"));
        pos.push(r);
    }
    if !cx.uses_sync {
        for (&at, dim) in pos.iter().zip(cx.dims.clone()) {
            let p = cx.reg(RegClass::Pred);
            cx.ins(format!("setp.ge.u32 {p}, {at}, {dim}"));
            cx.ins(format!("@{p} bra {exit}"));
        }
    }
    for (i, l) in f.locals.iter().enumerate() {
        if l.role != LocalRole::Special {
            continue;
        }
        let Some(which) = SPECIALS.iter().position(|s| *s == l.name) else {
            return unsupported(l.span, format!("the special parameter `{}`", l.name));
        };
        if which != 0 && which != 5 {
            cx.block_sensitive = true;
        }
        let width = match &l.ty {
            Type::Int(..) => None,
            t => match small_vec(t, cx.opts) {
                Some((NumTy::I32, n)) => Some(n),
                _ => return unsupported(l.span, format!("`{}` of type {}", l.name, l.ty)),
            },
        };
        let mut regs = Vec::new();
        #[allow(clippy::needless_range_loop)] // `d` also selects the CUDA axis
        for d in 0..width.unwrap_or(1) {
            let r = if which == 5 {
                let r = cx.reg(RegClass::B32);
                cx.ins(format!("mov.u32 {r}, WARP_SZ"));
                r
            } else if d >= rank {
                cx.imm_int(NumTy::I32, i64::from(which == 3 || which == 4))
            } else {
                match which {
                    0 => pos[d],
                    1 => sreg(cx, "tid", d),
                    2 => sreg(cx, "ctaid", d),
                    3 => sreg(cx, "ntid", d),
                    _ => sreg(cx, "nctaid", d),
                }
            };
            regs.push(r);
        }
        let v = match width {
            None => Val::Num(regs[0], NumTy::I32),
            Some(_) => Val::Vec(regs, NumTy::I32),
        };
        cx.frame_mut()?.locals.insert(LocalId(i as u32), v);
    }
    Ok(())
}

impl Ctx<'_> {
    /// Numbers and vectors that are plain variables start at zero, so that every register is
    /// defined on every path.
    pub fn init_vars(&mut self, f: &ir::Function) -> Res<()> {
        for (i, l) in f.locals.iter().enumerate() {
            let id = LocalId(i as u32);
            if !matches!(l.role, LocalRole::Var | LocalRole::Output)
                || self.frame()?.locals.contains_key(&id)
            {
                continue;
            }
            let v = if let Some(t) = NumTy::of(&l.ty, self.opts) {
                Val::Num(self.imm(t, 0.0), t)
            } else if let Some((t, n)) = small_vec(&l.ty, self.opts) {
                Val::Vec((0..n).map(|_| self.imm(t, 0.0)).collect(), t)
            } else {
                continue;
            };
            self.frame_mut()?.locals.insert(id, v);
        }
        Ok(())
    }
}

/// What a kernel does, found before emitting it.
#[derive(Default)]
pub(super) struct Scan {
    /// Uses `syncthreads` (also in the device functions it calls).
    pub sync: bool,
    /// Allocates shared memory.
    pub shared: bool,
}

impl Scan {
    fn function(&mut self, module: &Module, f: &ir::Function, seen: &mut Vec<FunctionId>) {
        let mut callees = Vec::new();
        let mut barrier = false;
        let mut sync = false;
        let mut shared = false;
        walk_block(
            &f.body,
            &mut |s| barrier |= matches!(s.kind, StmtKind::SyncThreads),
            &mut |e| match &e.kind {
                ExprKind::Call { callee: ir::Callee::Function(id), .. }
                | ExprKind::Closure { function: id, .. } => callees.push(*id),
                ExprKind::Call { callee: ir::Callee::Builtin(b), .. } => {
                    sync |= b.starts_with("syncthread");
                    shared |= b.starts_with("shared");
                }
                _ => {}
            },
        );
        self.sync |= sync || barrier;
        self.shared |= shared;
        for c in callees {
            if seen.contains(&c) || seen.len() > 64 {
                continue;
            }
            seen.push(c);
            if let Some(g) = module.functions.get(c.0 as usize) {
                self.function(module, g, seen);
            }
        }
    }
}
