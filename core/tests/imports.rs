//! core's layers, checked from its sources: no import circle between its modules
//! and no import back up a floor (issue 29). A module is a file; an import is a
//! `use` or a `crate::`/`super::`/`self::` path in code that is not a test, not a
//! comment. A name a parent module imports (its re-exports: `scan.rs`'s `pub(crate)
//! use finder::Finder`) counts as the module that defines it, and a parent's
//! re-export of its child is the module tree, not an import.
//!
//! Circles not yet broken are listed in [`KNOWN_CIRCLES`] with their issue: the test
//! fails on any other circle, and on a listed one that no longer exists, so the list
//! stays what the code is; [`KNOWN_UPWARD`] likewise for imports up a floor (none
//! today). The scan may import nothing of the strict profile, listed or not: strict
//! hands its sets down (`scan::DenseSets`). A planted import checks that both
//! checks see one.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Circles still in the code, each the sorted modules of one strongly connected
/// component, and the issue that breaks it.
const KNOWN_CIRCLES: &[(&[&str], &str)] = &[];

/// Imports from a module of the first set into one of the second that run back up a
/// floor, still in the code, with their issue.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// The floors, lowest first: a module may import its own floor and those below.
/// A module not named here is on the floor of its nearest named ancestor.
const FLOORS: &[&[&str]] = &[
    // Data: the rules, the generated tables, the scan's byte sets, refinements,
    // finders and SWAR constants.
    &[
        "rules",
        "tables",
        "scan::byteset",
        "scan::pairs",
        "scan::finder",
        "scan::words",
    ],
    // The scan: finders, the dispatch and the per-ISA kernels.
    &["class", "utf8", "scan"],
    // Everything built on the scan: the profiles, the checks, the writers.
    &["crate"],
];

/// Modules that must not touch `core::arch` nor import the dispatch (data leaves,
/// and the generic kernels, which take their ISA as a type parameter).
const NO_ARCH: &[&str] = &[
    "rules",
    "tables",
    "scan::byteset",
    "scan::pairs",
    "scan::finder",
    "scan::words",
    "scan::strict_patterns",
    "scan::generic",
];

struct Module {
    code: String,
}

fn module_name(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs").to_owned();
    if stem != "mod" && stem != "lib" {
        parts.push(stem);
    }
    if parts.is_empty() {
        "crate".to_owned()
    } else {
        parts.join("::")
    }
}

fn collect(dir: &Path, root: &Path, out: &mut BTreeMap<String, Module>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            out.insert(
                module_name(rel),
                Module {
                    code: code_only(&text),
                },
            );
        }
    }
}

/// The text without comments and without items under `#[cfg(test)]` (a test
/// module, a test helper, a test import).
fn code_only(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip attributes, then the item: to its `;` or its closing brace at
            // the item's indentation (rustfmt's layout).
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_start().starts_with("#[") {
                j += 1;
            }
            if j < lines.len() {
                let item = lines[j];
                let indent = &item[..item.len() - item.trim_start().len()];
                let mut k = j;
                loop {
                    let l = lines[k].trim_end();
                    if k == j && (l.ends_with(';') || l.ends_with('}')) && !l.ends_with('{') {
                        break;
                    }
                    if k > j && l.starts_with(indent) && {
                        let rest = &l[indent.len()..];
                        rest == "}"
                            || rest == "};"
                            || (rest.ends_with(';') && !rest.starts_with(' '))
                    } {
                        break;
                    }
                    if k + 1 >= lines.len() {
                        break;
                    }
                    k += 1;
                }
                i = k + 1;
                continue;
            }
        }
        let code = match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
        i += 1;
    }
    out
}

/// Expands a use tree (`a::{b, c::{d, e as f}}`) into flat paths; each is its
/// segments and the name it binds.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<UsePath>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let mut base = prefix.to_vec();
        base.extend(head);
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        let mut depth = 0;
        let mut start = 0;
        for (at, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..at], &base, out);
                    start = at + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &base, out);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    let mut segs = prefix.to_vec();
    segs.extend(path.split("::").map(|s| s.trim().to_owned()));
    let name = alias.map_or_else(|| segs.last().cloned().unwrap_or_default(), str::to_owned);
    if segs.last().is_some_and(|s| s == "self") {
        segs.pop();
    }
    out.push((segs, name));
}

/// A flat `use` path: its segments and the name it binds.
type UsePath = (Vec<String>, String);

/// The `use` statements of a module: (is a re-export, flat paths).
fn uses(code: &str) -> Vec<(bool, Vec<UsePath>)> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let stmt_start = at;
        let before = rest[..stmt_start].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let body_start = stmt_start + "use ".len();
        let end = rest[body_start..]
            .find(';')
            .map_or(rest.len(), |e| body_start + e);
        let mut paths = Vec::new();
        expand(&rest[body_start..end], &[], &mut paths);
        found.push((public, paths));
        rest = &rest[end..];
    }
    found
}

/// The next `use ` at the start of a statement.
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let at = from + at;
        let prev = code[..at].chars().next_back();
        if prev.is_none_or(|c| c.is_whitespace() || c == '}' || c == ';' || c == ')') {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// Paths written in code (not in `use`): `crate::…`, `super::…`, `self::…`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for key in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(key) {
            let at = from + at;
            from = at + key.len();
            if at > 0
                && (bytes[at - 1].is_ascii_alphanumeric()
                    || bytes[at - 1] == b'_'
                    || bytes[at - 1] == b':')
            {
                continue;
            }
            let mut end = at;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b':')
            {
                end += 1;
            }
            let segs: Vec<String> = code[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            out.push(segs);
        }
    }
    out
}

fn parent(m: &str) -> Option<String> {
    if m == "crate" {
        return None;
    }
    Some(
        m.rsplit_once("::")
            .map_or("crate".to_owned(), |(p, _)| p.to_owned()),
    )
}

fn child(m: &str, name: &str) -> String {
    if m == "crate" {
        name.to_owned()
    } else {
        format!("{m}::{name}")
    }
}

/// `segs` (as written in module `m`) as an absolute path from the crate root;
/// `None` for other crates.
fn absolute(m: &str, segs: &[String], modules: &BTreeMap<String, Module>) -> Option<Vec<String>> {
    let mut base = m.to_owned();
    let mut i = 0;
    match segs.first().map(String::as_str) {
        Some("crate") => {
            base = "crate".to_owned();
            i = 1;
        }
        Some("self") => i = 1,
        Some("super") => {
            while segs.get(i).is_some_and(|s| s == "super") {
                base = parent(&base)?;
                i += 1;
            }
        }
        Some(first) if modules.contains_key(&child(m, first)) => {}
        _ => return None,
    }
    let mut out: Vec<String> = if base == "crate" {
        Vec::new()
    } else {
        base.split("::").map(str::to_owned).collect()
    };
    out.extend(segs[i..].iter().cloned());
    Some(out)
}

/// The module an absolute path names an item of, through its modules' imports.
fn resolve(
    path: &[String],
    modules: &BTreeMap<String, Module>,
    names: &BTreeMap<(String, String), Vec<String>>,
    depth: usize,
) -> Option<String> {
    let mut m = "crate".to_owned();
    let mut i = 0;
    while i < path.len() && modules.contains_key(&child(&m, &path[i])) {
        m = child(&m, &path[i]);
        i += 1;
    }
    if let (Some(name), true) = (path.get(i), depth < 8)
        && let Some(target) = names.get(&(m.clone(), name.clone()))
    {
        let mut rest = target.clone();
        rest.extend(path[i + 1..].iter().cloned());
        return resolve(&rest, modules, names, depth + 1).or(Some(m));
    }
    Some(m)
}

fn is_within(m: &str, ancestor: &str) -> bool {
    ancestor == "crate" || m == ancestor || m.starts_with(&format!("{ancestor}::"))
}

fn floor(m: &str) -> usize {
    let mut best: Option<(usize, usize)> = None;
    for (level, names) in FLOORS.iter().enumerate() {
        for &n in *names {
            if is_within(m, n) {
                let len = if n == "crate" { 0 } else { n.len() };
                if best.is_none_or(|(_, l)| len > l) {
                    best = Some((level, len));
                }
            }
        }
    }
    best.map_or(FLOORS.len(), |(level, _)| level)
}

struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

/// core's modules as its sources have them.
fn sources() -> BTreeMap<String, Module> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    collect(&root, &root, &mut modules);
    modules
}

fn graph() -> (Graph, BTreeMap<String, Module>) {
    graph_of(sources())
}

/// The import graph of `modules` (code only, as [`code_only`] leaves it).
fn graph_of(mut modules: BTreeMap<String, Module>) -> (Graph, BTreeMap<String, Module>) {
    // Inline modules between a file and its parent's file (`arch.rs`'s `aarch64`).
    let files: Vec<String> = modules.keys().cloned().collect();
    for m in files {
        let mut up = parent(&m);
        while let Some(p) = up {
            modules.entry(p.clone()).or_insert(Module {
                code: String::new(),
            });
            up = parent(&p);
        }
    }
    // The names each module binds with `use`, as absolute paths.
    let mut names = BTreeMap::new();
    let mut reexports = BTreeSet::new();
    for (m, module) in &modules {
        for (public, paths) in uses(&module.code) {
            for (segs, name) in paths {
                if name == "*" {
                    continue;
                }
                if let Some(abs) = absolute(m, &segs, &modules) {
                    names.insert((m.clone(), name), abs.clone());
                    if public {
                        reexports.insert((m.clone(), abs));
                    }
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, module) in &modules {
        let mut paths: Vec<(bool, Vec<String>)> = Vec::new();
        for (public, flat) in uses(&module.code) {
            for (segs, _) in flat {
                paths.push((public, segs));
            }
        }
        paths.extend(inline_paths(&module.code).into_iter().map(|p| (false, p)));
        for (public, segs) in paths {
            let Some(abs) = absolute(m, &segs, &modules) else {
                continue;
            };
            let Some(target) = resolve(&abs, &modules, &names, 0) else {
                continue;
            };
            if &target == m || is_within(m, &target) {
                // Itself, or an ancestor's own item through the tree.
                if &target == m || !modules.contains_key(&target) {
                    continue;
                }
            }
            if public && is_within(&target, m) {
                // A parent re-exporting its child: the module tree.
                continue;
            }
            edges.entry(m.clone()).or_default().insert(target);
        }
    }
    (Graph { edges }, modules)
}

/// The strongly connected components with more than one module (Tarjan).
fn circles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        if let Some(next) = s.g.edges.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(lw));
                } else if s.on.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low[v];
                    s.low.insert(v, lv.min(iw));
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(w);
                comp.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

#[test]
fn no_import_circle_but_the_known_ones() {
    let (g, _) = graph();
    let found = circles(&g);
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|(c, _)| c.iter().map(|s| (*s).to_owned()).collect())
        .collect();
    for c in &found {
        assert!(
            known.contains(c),
            "an import circle: {c:?}\n(edges: {:#?})",
            c.iter().map(|m| (m, &g.edges[m])).collect::<Vec<_>>()
        );
    }
    for (c, issue) in KNOWN_CIRCLES {
        let c: Vec<String> = c.iter().map(|s| (*s).to_owned()).collect();
        assert!(
            found.contains(&c),
            "the circle {c:?} ({issue}) is broken or changed: update KNOWN_CIRCLES (found: {found:?})"
        );
    }
}

/// The imports from a module into one on a higher floor.
fn upward(g: &Graph) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    for (from, tos) in &g.edges {
        for to in tos {
            if floor(to) > floor(from) {
                found.insert((from.clone(), to.clone()));
            }
        }
    }
    found
}

/// The imports from the scan into the strict profile: the profile passes its sets
/// down (`scan::DenseSets`), so none is allowed, not even through [`KNOWN_UPWARD`].
fn scan_into_strict(g: &Graph) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (from, tos) in &g.edges {
        if !is_within(from, "scan") {
            continue;
        }
        for to in tos {
            if is_within(to, "strict") {
                found.push((from.clone(), to.clone()));
            }
        }
    }
    found
}

#[test]
fn no_import_back_up_a_floor_but_the_known_ones() {
    let (g, _) = graph();
    let found = upward(&g);
    let known: BTreeSet<(String, String)> = KNOWN_UPWARD
        .iter()
        .map(|(a, b, _)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    assert!(new.is_empty(), "imports back up a floor: {new:?}");
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        gone.is_empty(),
        "known upward imports no longer there (update KNOWN_UPWARD): {gone:?}"
    );
}

#[test]
fn the_scan_imports_nothing_of_strict() {
    let (g, _) = graph();
    let found = scan_into_strict(&g);
    assert!(
        found.is_empty(),
        "the scan imports the strict profile: {found:?}"
    );
}

#[test]
fn a_planted_import_from_scan_into_strict_fails_the_checks() {
    // Each way of writing an import, planted into a copy of the real sources: both
    // checks must see it (so a check that sees nothing cannot pass).
    let plants = [
        "use crate::strict::class::StrictSets;\n",
        "use crate::strict::{class::{in_drop_set_cp as d}};\n",
        "fn f() -> bool { crate::strict::class::is_inert(0) }\n",
        "use super::super::strict::class::is_inert;\n",
    ];
    for plant in plants {
        let mut modules = sources();
        let target = modules.get_mut("scan::strict_patterns").unwrap();
        target.code.push_str(plant);
        let (g, _) = graph_of(modules);
        let edge = (
            "scan::strict_patterns".to_owned(),
            "strict::class".to_owned(),
        );
        assert!(scan_into_strict(&g).contains(&edge), "not seen: {plant}");
        assert!(upward(&g).contains(&edge), "not upward: {plant}");
    }
}

#[test]
fn data_leaves_touch_no_arch_code() {
    let (g, modules) = graph();
    let arch =
        |m: &str| m.starts_with("scan::arch") || m.starts_with("scan::x86") || m.ends_with("_x86");
    for (m, module) in &modules {
        if !NO_ARCH.iter().any(|n| is_within(m, n) && *n != "crate") {
            continue;
        }
        assert!(!module.code.contains("core::arch"), "{m} uses core::arch");
        for to in g.edges.get(m).into_iter().flatten() {
            assert!(!arch(to) && to != "scan::backend", "{m} imports {to}");
        }
    }
}

#[test]
fn the_check_sees_imports() {
    // The parser on known shapes, so a check that sees nothing cannot pass.
    let (g, _) = graph();
    let has = |a: &str, b: &str| g.edges.get(a).is_some_and(|s| s.contains(b));
    assert!(
        has("scan::backend", "scan::finder"),
        "{:?}",
        g.edges.get("scan::backend")
    );
    assert!(has("class", "tables"));
    assert!(has("scan::x86", "rules"));
    assert!(
        has("scan::x86", "scan::finder"),
        "super::Finder resolves through scan.rs's re-export"
    );
    assert!(
        !has("scan", "scan::finder"),
        "a re-export of a child is the tree"
    );
    assert!(g.edges.len() > 20);
}
