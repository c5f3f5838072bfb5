//! One kernel entry: the emitter's state, the parameter ABI (see `mod.rs`), the special
//! parameters, and the assembly of the `.entry` text.

use super::abi::{bind_arg, launch_rank, specials};
use super::regs::{small_vec, NumTy, Reg, RegClass, Val};
use super::{unsupported, PtxCheckSite, PtxKernel, PtxOptions, PtxParam, PtxParamRole, Res};
use crate::ir::walk::walk_block;
use crate::ir::{self, ExprKind, FunctionId, LocalId, LocalRole, Module, StmtKind};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::AssignOp;
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
    counts: [u32; 6],
    labels: u32,
    pub frames: Vec<Frame<'m>>,
    /// `(continue label, break label)` of the enclosing loops.
    pub loops: Vec<(String, String)>,
    pub shared_decls: Vec<String>,
    /// The spans of the `local = shared(…)` statements' calls at the top level of the kernel
    /// body: these arrays are carved from the dynamic shared memory, as on the CPU.
    pub top_shared: Vec<ir::NodeId>,
    /// The bytes of dynamic shared memory used so far (a `u64` register).
    pub shared_off: Option<Reg>,
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

/// Emits kernel `id` as the entry `entry`; its `'checked` sites are numbered from `site_base`.
/// The calls of `local = shared(…)`/`shared_zeros(…)` statements at the top level of a body
/// (the arrays the CPU backend's `shared_bytes(blkdim)` counts, in this order), by position
/// (`Span`'s `==` does not compare positions).
fn top_shared(f: &ir::Function) -> Vec<ir::NodeId> {
    f.body
        .iter()
        .filter_map(|s| {
            let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else {
                return None;
            };
            let ir::PlaceKind::Local(_) = place.kind else { return None };
            match &value.kind {
                ExprKind::Call {
                    callee: ir::Callee::Builtin(ir::Builtin::Shared | ir::Builtin::SharedZeros),
                    ..
                } => Some(value.id),
                _ => None,
            }
        })
        .collect()
}

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
        counts: [0; 6],
        labels: 0,
        frames: Vec::new(),
        loops: Vec::new(),
        shared_decls: Vec::new(),
        top_shared: top_shared(f),
        shared_off: None,
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
        .filter(|p| f.locals.get(p.0 as usize).is_some_and(|l| l.special().is_none()))
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
                // Thread groups: every thread of the launch keeps running, so that warps
                // and blocks are complete (see `coop.rs`).
                _ if matches!(e.ty, Type::ThreadBlock(_)) => sync = true,
                ExprKind::Call { callee: ir::Callee::Function(id), .. }
                | ExprKind::Closure { function: id, .. } => callees.push(*id),
                ExprKind::Call { callee: ir::Callee::Builtin(b), .. } => {
                    use ir::Builtin as B;
                    sync |= matches!(b, B::Syncthreads | B::Syncthread);
                    shared |= matches!(b, B::Shared | B::SharedZeros);
                }
                _ => {}
            },
        );
        self.sync |= sync || barrier;
        self.shared |= shared;
        // A call through a function value may reach any function of its type.
        let mut fn_types = f.locals.iter().filter_map(|l| match &l.ty {
            Type::Function(ft) => Some(ft),
            _ => None,
        });
        if fn_types.next().is_some() {
            let vals = crate::backend::rust::fnval::function_values(module);
            for l in &f.locals {
                if let Type::Function(ft) = &l.ty {
                    if let Some(k) = vals.index_of(ft) {
                        callees.extend_from_slice(vals.variants(k));
                    }
                }
            }
        }
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
