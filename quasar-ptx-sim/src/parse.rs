//! The module structure of PTX text: header directives, `.global` variables, the dynamic
//! `.extern .shared` array, and entries with their parameters, registers, static `.shared`
//! arrays, labels and instruction statements (decoded by `decode.rs`).
//!
//! Only what the Quasar PTX back end writes is accepted; anything else is a [`ParseError`]
//! naming its line.

use crate::decode::{decode, Regs};
use crate::error::ParseError;
use crate::inst::Guarded;
use crate::lex::{int_literal, tokens, Tok, Token};
use std::collections::HashMap;

/// A `.global` variable of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVar {
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub size: usize,
    /// Its alignment.
    pub align: usize,
}

/// A `.param` of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    /// Its name.
    pub name: String,
    /// Its declaration after `.param`, e.g. `.u32` or `.align 4 .b8 [12]`.
    pub decl: String,
    /// Its size in bytes.
    pub size: usize,
    /// Its alignment.
    pub align: usize,
    /// Its offset in the parameter space.
    pub offset: usize,
}

/// An operand as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Opnd {
    /// `%r1`, `%tid.x`, `WARP_SZ`, a symbol or a label.
    Name(String),
    /// An integer literal (negated when written with `-`).
    Int(i128),
    /// `0f…`/`0d…`: bits and whether it is a double.
    Float(u64, bool),
    /// `[base+offset]`.
    Mem(String, i64),
    /// `!%p`.
    Not(String),
    /// `%r|%p`.
    Pair(String, String),
    /// `{%r1, %r2}`: a vector of registers.
    Vector(Vec<String>),
    /// `(retval0)`, `(param0, param1)`: the results or arguments of a `call`.
    Args(Vec<String>),
}

/// An instruction statement before decoding.
#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub line: u32,
    pub guard: Option<(String, bool)>,
    pub opcode: String,
    pub operands: Vec<Opnd>,
}

/// One `.entry`, decoded.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// Its parameters, laid out in order.
    pub params: Vec<ParamDecl>,
    pub(crate) param_bytes: usize,
    /// Declared registers (not predicates); the constants follow them.
    pub(crate) nregs: usize,
    pub(crate) consts: Vec<u64>,
    pub(crate) npreds: usize,
    pub(crate) code: Vec<Guarded>,
    pub(crate) lines: Vec<u32>,
    pub(crate) texts: Vec<String>,
    /// Bytes of the entry's static `.shared` arrays; the dynamic array starts at
    /// `dynamic_offset`.
    pub(crate) static_shared: usize,
    pub(crate) dynamic_offset: usize,
    /// Whether it calls `malloc` (its launches get a device heap).
    pub(crate) calls_malloc: bool,
}

/// A parsed and decoded PTX module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The `.global` variables.
    pub globals: Vec<GlobalVar>,
    /// The entries.
    pub entries: Vec<Entry>,
}

struct Parser<'a> {
    toks: &'a [Token],
    at: usize,
    lines: Vec<&'a str>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }
    fn line(&self) -> u32 {
        self.toks.get(self.at).or(self.toks.last()).map_or(1, |t| t.line)
    }
    fn err<T>(&self, m: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::new(self.line(), m))
    }
    fn next(&mut self) -> Result<&'a Tok, ParseError> {
        match self.toks.get(self.at) {
            Some(t) => {
                self.at += 1;
                Ok(&t.tok)
            }
            None => self.err("unexpected end of the module"),
        }
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(&Tok::P(c)) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`"))
        }
    }
    fn dir(&mut self) -> Option<&'a str> {
        match self.peek() {
            Some(Tok::Dir(d)) => {
                self.at += 1;
                Some(d)
            }
            _ => None,
        }
    }
    fn word(&mut self) -> Result<&'a str, ParseError> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            t => self.err(format!("expected a name, found {t:?}")),
        }
    }
    fn number(&mut self) -> Result<u64, ParseError> {
        match self.next()? {
            Tok::Num(n) => match int_literal(n) {
                Some(v) => Ok(v),
                None => self.err(format!("`{n}` is not an integer")),
            },
            t => self.err(format!("expected a number, found {t:?}")),
        }
    }
    /// `.align N` if present.
    fn align(&mut self) -> Result<Option<usize>, ParseError> {
        if self.eat(&Tok::Dir(".align".into())) {
            let a = self.number()? as usize;
            if !a.is_power_of_two() {
                return self.err(format!("alignment {a} is not a power of two"));
            }
            return Ok(Some(a));
        }
        Ok(None)
    }
}

/// Size in bytes of a scalar state-space type (`.u32`, `.b8`, …).
fn type_bytes(t: &str) -> Option<usize> {
    match t {
        ".b8" | ".u8" | ".s8" => Some(1),
        ".b16" | ".u16" | ".s16" | ".f16" => Some(2),
        ".b32" | ".u32" | ".s32" | ".f32" => Some(4),
        ".b64" | ".u64" | ".s64" | ".f64" => Some(8),
        _ => None,
    }
}

/// Parses and decodes `text`.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let toks = tokens(text)?;
    let mut p = Parser { toks: &toks, at: 0, lines: text.lines().collect() };
    let mut globals = Vec::new();
    let mut dynamic: Option<(String, usize)> = None;
    let mut pending = Vec::new();
    let mut seen_version = false;
    while let Some(t) = p.peek() {
        let Tok::Dir(d) = t else {
            return p.err(format!("expected a directive, found {t:?}"));
        };
        p.at += 1;
        match d.as_str() {
            ".version" => {
                match p.next()? {
                    Tok::Num(v)
                        if v.split('.').next().and_then(|m| m.parse::<u32>().ok()) >= Some(6) => {}
                    t => return p.err(format!("unsupported PTX version {t:?}")),
                }
                seen_version = true;
            }
            ".target" => {
                let w = p.word()?;
                if !w.starts_with("sm_") {
                    return p.err(format!("unsupported target `{w}`"));
                }
            }
            ".address_size" => {
                if p.number()? != 64 {
                    return p.err("only 64-bit addresses are supported");
                }
            }
            ".visible" | ".extern" => {
                let ext = d == ".extern";
                match p.dir() {
                    Some(".entry") if !ext => pending.push(parse_entry(&mut p)?),
                    Some(".global") if !ext => globals.push(parse_global(&mut p)?),
                    // `malloc` and `free`, the device heap's functions (CUDA's declarations).
                    Some(".func") if ext => {
                        let name = parse_extern_func(&mut p)?;
                        if name != "malloc" && name != "free" {
                            return p.err(format!("unsupported external function `{name}`"));
                        }
                    }
                    Some(".shared") if ext => {
                        let align = p.align()?.unwrap_or(1);
                        if p.dir() != Some(".b8") {
                            return p.err("the dynamic shared array must be `.b8 name[]`");
                        }
                        let name = p.word()?.to_string();
                        p.expect('[')?;
                        p.expect(']')?;
                        p.expect(';')?;
                        if dynamic.is_some() {
                            return p.err("a second dynamic shared array");
                        }
                        dynamic = Some((name, align));
                    }
                    other => return p.err(format!("unsupported declaration {d} {other:?}")),
                }
            }
            ".entry" => pending.push(parse_entry(&mut p)?),
            ".global" => globals.push(parse_global(&mut p)?),
            // Source files for `.loc` (`.file 1 "blur.q"`, optionally `, time, size`): debug
            // information only.
            ".file" => {
                p.number()?;
                match p.next()? {
                    Tok::Str(_) => {}
                    t => return p.err(format!("expected a file name, found {t:?}")),
                }
                while p.eat(&Tok::P(',')) {
                    p.number()?;
                }
            }
            _ => return p.err(format!("unsupported directive `{d}`")),
        }
    }
    if !seen_version {
        return Err(ParseError::new(1, "the module has no `.version`"));
    }
    let mut entries = Vec::new();
    for e in pending {
        entries.push(e.finish(&globals, dynamic.as_ref())?);
    }
    Ok(Module { globals, entries })
}

fn parse_global(p: &mut Parser<'_>) -> Result<GlobalVar, ParseError> {
    let align = p.align()?;
    let ty = p.dir().unwrap_or("");
    let Some(elem) = type_bytes(ty) else {
        return p.err(format!("unsupported type `{ty}` of a .global variable"));
    };
    let name = p.word()?.to_string();
    let mut count = 1;
    if p.eat(&Tok::P('[')) {
        count = p.number()? as usize;
        p.expect(']')?;
    }
    if p.peek() != Some(&Tok::P(';')) {
        return p.err("initialised .global variables are not supported");
    }
    p.expect(';')?;
    Ok(GlobalVar { name, size: elem * count, align: align.unwrap_or(elem).max(elem) })
}

/// An entry before its instructions are decoded.
struct RawEntry {
    name: String,
    params: Vec<ParamDecl>,
    regs: Regs,
    shared: Vec<(String, usize, usize)>,
    labels: HashMap<String, u32>,
    stmts: Vec<Stmt>,
    texts: Vec<String>,
}

/// `.extern .func (.param .b64 r) name (.param .b64 a);` after `.func`: the name.
fn parse_extern_func(p: &mut Parser<'_>) -> Result<String, ParseError> {
    let skip_params = |p: &mut Parser<'_>| -> Result<(), ParseError> {
        p.expect('(')?;
        while !p.eat(&Tok::P(')')) {
            p.next()?;
        }
        Ok(())
    };
    if p.peek() == Some(&Tok::P('(')) {
        skip_params(p)?;
    }
    let name = p.word()?.to_string();
    if p.peek() == Some(&Tok::P('(')) {
        skip_params(p)?;
    }
    p.expect(';')?;
    Ok(name)
}

fn parse_entry(p: &mut Parser<'_>) -> Result<RawEntry, ParseError> {
    let name = p.word()?.to_string();
    let mut params = Vec::new();
    let mut offset = 0usize;
    if p.eat(&Tok::P('(')) {
        while !p.eat(&Tok::P(')')) {
            if !params.is_empty() {
                p.expect(',')?;
            }
            if p.dir() != Some(".param") {
                return p.err("expected `.param`");
            }
            let align = p.align()?;
            let ty = p.dir().unwrap_or("");
            let Some(elem) = type_bytes(ty) else {
                return p.err(format!("unsupported parameter type `{ty}`"));
            };
            let pname = p.word()?.to_string();
            let (size, decl) = if p.eat(&Tok::P('[')) {
                let n = p.number()? as usize;
                p.expect(']')?;
                (
                    elem * n,
                    format!("{}{ty}[{n}]", align.map_or(String::new(), |a| format!(".align {a} "))),
                )
            } else {
                (elem, ty.to_string())
            };
            let align = align.unwrap_or(elem).max(elem);
            offset = offset.next_multiple_of(align);
            params.push(ParamDecl { name: pname, decl, size, align, offset });
            offset += size;
        }
    }
    p.expect('{')?;
    let mut e = RawEntry {
        name,
        params,
        regs: Regs::default(),
        shared: Vec::new(),
        labels: HashMap::new(),
        stmts: Vec::new(),
        texts: Vec::new(),
    };
    // Nested `{ … }` scopes hold a call's `.param` variables.
    let mut depth = 0usize;
    loop {
        match p.peek() {
            Some(Tok::P('{')) => {
                p.at += 1;
                depth += 1;
            }
            Some(Tok::P('}')) if depth > 0 => {
                p.at += 1;
                depth -= 1;
            }
            Some(Tok::P('}')) => {
                p.at += 1;
                return Ok(e);
            }
            // `.param .b64 param0;` of a call: a register the call sequence moves through.
            Some(Tok::Dir(d)) if d == ".param" && depth > 0 => {
                p.at += 1;
                let bits = match p.dir().and_then(type_bytes) {
                    Some(b) if b >= 4 => 8 * b as u8,
                    _ => return p.err("call parameters must be `.param .b32` or `.b64`"),
                };
                let name = p.word()?.to_string();
                p.expect(';')?;
                e.regs.declare(name, bits, p.line())?;
            }
            Some(Tok::Dir(d)) if d == ".reg" => {
                p.at += 1;
                parse_reg(p, &mut e.regs)?;
            }
            // `.loc file line column`: where the following instructions come from.
            Some(Tok::Dir(d)) if d == ".loc" => {
                p.at += 1;
                for _ in 0..3 {
                    p.number()?;
                }
            }
            Some(Tok::Dir(d)) if d == ".shared" => {
                p.at += 1;
                let align = p.align()?.unwrap_or(1);
                if p.dir() != Some(".b8") {
                    return p.err("static shared arrays must be `.b8 name[N]`");
                }
                let n = p.word()?.to_string();
                p.expect('[')?;
                let size = p.number()? as usize;
                p.expect(']')?;
                p.expect(';')?;
                e.shared.push((n, size, align));
            }
            Some(Tok::Word(w)) if p.toks.get(p.at + 1).map(|t| &t.tok) == Some(&Tok::P(':')) => {
                let w = w.clone();
                p.at += 2;
                if e.labels.insert(w.clone(), e.stmts.len() as u32).is_some() {
                    return p.err(format!("label `{w}` defined twice"));
                }
            }
            Some(_) => {
                let line = p.line();
                let s = parse_stmt(p)?;
                let text = p.lines.get(line as usize - 1).map_or("", |l| l.trim());
                e.texts.push(text.trim_end_matches(';').to_string());
                e.stmts.push(s);
            }
            None => return p.err("unterminated entry"),
        }
    }
}

/// `.reg .b32 %r<8>;` or `.reg .b32 %a, %b;`.
fn parse_reg(p: &mut Parser<'_>, regs: &mut Regs) -> Result<(), ParseError> {
    let ty = p.dir().unwrap_or("");
    let bits = match ty {
        ".pred" => 0,
        _ => match type_bytes(ty) {
            Some(b) if b >= 2 => 8 * b as u8,
            _ => return p.err(format!("unsupported register type `{ty}`")),
        },
    };
    loop {
        let name = p.word()?.to_string();
        if p.eat(&Tok::P('<')) {
            let n = p.number()?;
            p.expect('>')?;
            for i in 0..n {
                regs.declare(format!("{name}{i}"), bits, p.line())?;
            }
        } else {
            regs.declare(name, bits, p.line())?;
        }
        if !p.eat(&Tok::P(',')) {
            break;
        }
    }
    p.expect(';')
}

fn parse_stmt(p: &mut Parser<'_>) -> Result<Stmt, ParseError> {
    let line = p.line();
    let mut guard = None;
    if p.eat(&Tok::P('@')) {
        let neg = p.eat(&Tok::P('!'));
        guard = Some((p.word()?.to_string(), neg));
    }
    let opcode = p.word()?.to_string();
    let mut operands = Vec::new();
    if !p.eat(&Tok::P(';')) {
        loop {
            operands.push(parse_operand(p)?);
            if p.eat(&Tok::P(';')) {
                break;
            }
            p.expect(',')?;
        }
    }
    Ok(Stmt { line, guard, opcode, operands })
}

fn parse_operand(p: &mut Parser<'_>) -> Result<Opnd, ParseError> {
    Ok(match p.next()? {
        Tok::P('!') => Opnd::Not(p.word()?.to_string()),
        Tok::P('-') => match p.next()? {
            Tok::Num(n) => match int_literal(n) {
                Some(v) => Opnd::Int(-(v as i128)),
                None => return p.err(format!("`-{n}` is not an integer literal")),
            },
            t => return p.err(format!("unexpected {t:?} after `-`")),
        },
        Tok::Num(n) => {
            if let Some((bits, d)) = crate::lex::float_literal(n) {
                Opnd::Float(bits, d)
            } else if let Some(v) = int_literal(n) {
                Opnd::Int(v as i128)
            } else {
                return p.err(format!("unsupported literal `{n}`"));
            }
        }
        Tok::Word(w) => {
            if p.eat(&Tok::P('|')) {
                Opnd::Pair(w.clone(), p.word()?.to_string())
            } else {
                Opnd::Name(w.clone())
            }
        }
        Tok::P('(') => {
            let mut regs = vec![p.word()?.to_string()];
            while p.eat(&Tok::P(',')) {
                regs.push(p.word()?.to_string());
            }
            p.expect(')')?;
            Opnd::Args(regs)
        }
        Tok::P('{') => {
            let mut regs = vec![p.word()?.to_string()];
            while p.eat(&Tok::P(',')) {
                regs.push(p.word()?.to_string());
            }
            p.expect('}')?;
            Opnd::Vector(regs)
        }
        Tok::P('[') => {
            let base = p.word()?.to_string();
            let mut off = 0i64;
            if p.eat(&Tok::P('+')) {
                let neg = p.eat(&Tok::P('-'));
                let v = p.number()? as i64;
                off = if neg { -v } else { v };
            } else if p.eat(&Tok::P('-')) {
                off = -(p.number()? as i64);
            }
            p.expect(']')?;
            Opnd::Mem(base, off)
        }
        t => return p.err(format!("unexpected {t:?} in an operand")),
    })
}

impl RawEntry {
    /// Lays out shared memory and decodes the instructions.
    fn finish(
        mut self,
        globals: &[GlobalVar],
        dynamic: Option<&(String, usize)>,
    ) -> Result<Entry, ParseError> {
        let mut shared = HashMap::new();
        let mut off = 0usize;
        for (n, size, align) in &self.shared {
            off = off.next_multiple_of(*align);
            shared.insert(n.clone(), off as u64);
            off += size;
        }
        let static_shared = off;
        let dynamic_offset = off.next_multiple_of(dynamic.map_or(1, |d| d.1).max(16));
        if let Some((n, _)) = dynamic {
            shared.insert(n.clone(), dynamic_offset as u64);
        }
        let params: HashMap<String, u64> =
            self.params.iter().map(|p| (p.name.clone(), p.offset as u64)).collect();
        let globals: HashMap<String, u16> =
            globals.iter().enumerate().map(|(i, g)| (g.name.clone(), i as u16)).collect();
        let syms = crate::decode::Symbols {
            params: &params,
            shared: &shared,
            globals: &globals,
            labels: &self.labels,
        };
        if let Some((l, _)) = self.labels.iter().find(|(_, &at)| at as usize >= self.stmts.len()) {
            let line = self.stmts.last().map_or(1, |s| s.line);
            return Err(ParseError::new(
                line,
                format!("label `{l}` is not followed by an instruction"),
            ));
        }
        let mut code = Vec::with_capacity(self.stmts.len());
        let mut lines = Vec::with_capacity(self.stmts.len());
        for s in &self.stmts {
            code.push(decode(s, &mut self.regs, &syms)?);
            lines.push(s.line);
        }
        if code.last().is_none_or(|g| {
            !matches!(g.inst, crate::inst::Inst::Ret | crate::inst::Inst::Bra { .. })
                || g.guard.is_some()
        }) {
            let line = self.stmts.last().map_or(1, |s| s.line);
            return Err(ParseError::new(
                line,
                format!("entry `{}` does not end with `ret`", self.name),
            ));
        }
        let param_bytes = self.params.last().map_or(0, |p| p.offset + p.size);
        let calls_malloc = code.iter().any(|g| matches!(g.inst, crate::inst::Inst::Malloc { .. }));
        Ok(Entry {
            name: self.name,
            params: self.params,
            param_bytes,
            nregs: self.regs.count(),
            npreds: self.regs.preds(),
            consts: self.regs.consts,
            code,
            lines,
            texts: self.texts,
            static_shared,
            dynamic_offset,
            calls_malloc,
        })
    }
}
