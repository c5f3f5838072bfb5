//! One kernel entry: the emitter's state, the parameter ABI (see `mod.rs`), the special
//! parameters, and the assembly of the `.entry` text.

use super::abi::{bind_arg, specials};
use super::regs::{small_vec, NumTy, Reg, RegClass, Val};
use super::{unsupported, PtxCheckSite, PtxKernel, PtxOptions, PtxParam, PtxParamRole, Res};
use crate::analysis::ModuleInfo;
use crate::ir::{self, FunctionId, LocalId, LocalRole, Module};
use crate::sema::types::Type;
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
    pub info: &'m ModuleInfo,
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
    /// The thread's position (`s32`, one per launch dimension).
    pub positions: Vec<Reg>,
    /// Emitting the interior copy of a partitioned kernel: the accesses proven in bounds.
    pub interior: Option<std::collections::BTreeSet<ir::NodeId>>,
    /// The Quasar file and line of the last `.loc` (or `// line` comment).
    pub last_line: Option<(u32, u32)>,
    /// The arrays this kernel's blocks may accumulate into shared copies of (`private.rs`).
    pub privates: Vec<super::private::Private>,
    /// The head of the thread's list of dynamic kernel memory, when it allocates (`heap.rs`).
    pub heap_head: Option<Reg>,
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
            None => unsupported(
                Span::default(),
                "code outside a function",
                "report this as a compiler bug, with the program; meanwhile run the \
                 kernel on the CPU",
            ),
        }
    }

    pub fn frame_mut(&mut self) -> Res<&mut Frame<'m>> {
        match self.frames.last_mut() {
            Some(f) => Ok(f),
            None => unsupported(
                Span::default(),
                "code outside a function",
                "report this as a compiler bug, with the program; meanwhile run the \
                 kernel on the CPU",
            ),
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
pub(super) fn emit_kernel(
    module: &Module,
    info: &ModuleInfo,
    id: FunctionId,
    entry: &str,
    opts: &PtxOptions,
    site_base: usize,
    sites_out: &mut Vec<PtxCheckSite>,
) -> Res<(String, PtxKernel)> {
    let f = module.function(id);
    let Some(k) = info.kernel(id) else {
        return unsupported(
            f.span,
            "this kernel",
            "launch the kernel with `parallel_do` in this module",
        );
    };
    let rank = match k.launch_rank() {
        Some(r) if (1..=3).contains(&r) => r,
        Some(r) => {
            return unsupported(
                f.span,
                format!("a launch over {r} dimensions"),
                "launch over 1 to 3 dimensions (`parallel_do([h, w], …)`), folding extra \
                 dimensions into one",
            )
        }
        None => {
            return unsupported(
                f.span,
                "a kernel whose launch rank is unknown (no `pos`-like parameter and no \
                 `parallel_do` with typed dimensions)",
                "give the kernel a position parameter (`pos : ivec2`) or launch it with \
                 `parallel_do` over dimensions of known length",
            )
        }
    };
    let mut cx = Ctx {
        module,
        info,
        opts,
        entry: entry.to_string(),
        code: String::new(),
        counts: [0; 6],
        labels: 0,
        frames: Vec::new(),
        loops: Vec::new(),
        shared_decls: Vec::new(),
        top_shared: k.shared.iter().map(|s| s.call).collect(),
        shared_off: None,
        sites: Vec::new(),
        site_base,
        uses_sync: k.sync,
        block_sensitive: k.sync || k.uses_shared || k.block_geometry,
        dims: Vec::new(),
        positions: Vec::new(),
        interior: None,
        last_line: None,
        privates: Vec::new(),
        heap_head: None,
    };
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
    for (arg, &lid) in k.arg_slots.iter().enumerate() {
        let v = bind_arg(&mut cx, f, lid, arg, &mut params)?;
        cx.frame_mut()?.locals.insert(lid, v);
    }
    for (k, &lid) in f.outputs.iter().enumerate() {
        let local = local(f, lid)?;
        let Some(t) = NumTy::of(&local.ty) else {
            return unsupported(
                local.span,
                format!("an output argument of type {}", local.ty),
                "declare the output argument as a number (`scalar`, `int`, …)",
            );
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
    // Before the launch-edge test: every thread of the block clears the shared copies.
    cx.private_setup(&k.accumulators, k.uses_shared)?;
    // Before the launch-edge test, which may end the thread.
    cx.heap_setup(f);
    specials(&mut cx, f, rank, &exit)?;
    cx.init_vars(f)?;
    match f.partition.as_ref().filter(|_| !cx.uses_sync) {
        Some(p) => cx.partitioned_body(f, p, &exit)?,
        None => cx.block(&f.body)?,
    }
    cx.place(&exit);
    cx.heap_release();
    cx.private_merge()?;
    cx.ins("ret");
    if !cx.sites.is_empty() {
        params.push(PtxParam {
            name: error_param(entry),
            ty: ".u64".into(),
            bytes: 8,
            role: PtxParamRole::ErrorWord,
        });
    }

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

/// The hidden last `.entry` parameter of a kernel that can fail: the address of the launch's
/// error word (see `mod.rs`).
fn error_param(entry: &str) -> String {
    format!("{entry}_err")
}

impl Ctx<'_> {
    /// The launch's error word, loaded where a site fails (only failing threads pay for it);
    /// `emit_kernel` declares the parameter once the kernel has sites.
    pub(super) fn error_word(&mut self) -> Reg {
        let r = self.reg(RegClass::B64);
        self.ins(format!("ld.param.u64 {r}, [{}]", error_param(&self.entry)));
        self.ins(format!("cvta.to.global.u64 {r}, {r}"));
        r
    }
}

pub(super) fn local(f: &ir::Function, id: LocalId) -> Res<&ir::Local> {
    match f.locals.get(id.0 as usize) {
        Some(l) => Ok(l),
        None => unsupported(
            f.span,
            "a reference to an unknown local",
            "report this as a compiler bug, with the program; meanwhile run the kernel \
             on the CPU",
        ),
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
            let v = if let Some(t) = NumTy::of(&l.ty) {
                Val::Num(self.imm(t, 0.0), t)
            } else if let Some((t, n)) = small_vec(&l.ty) {
                Val::Vec((0..n).map(|_| self.imm(t, 0.0)).collect(), t)
            } else if let Type::Class(_) = &l.ty {
                let lay = super::class::layout_of(self.module, &l.ty, l.span)?;
                self.zero_class(&lay)
            } else {
                continue;
            };
            self.frame_mut()?.locals.insert(id, v);
        }
        Ok(())
    }
}
