//! The reader of MLIR text: MLIR's generic grammar (`mlir/docs/LangRef.md`:
//! operations, regions, blocks, attribute dictionaries, aliases,
//! locations), with the custom forms of `builtin.module`, `func.func` and
//! `sdy.mesh` read in full and every other operation's custom form read as
//! balanced text whose last `:` outside brackets starts its types.
//!
//! Where an operation in custom form ends is not written: MLIR prints one
//! operation per line, and continues an operation on the next line only
//! with a region (`cond {`, `} do {`, `reducer(...) {`). An operation ends
//! at a line break outside brackets unless the next line starts with `{`,
//! `:` or `->`, or with a word without a dot followed by `{` or `(`.

use std::borrow::Cow;

use super::cursor::{Brackets, Cursor, error_at, is_id_start, unescape};
use super::flow::{Fact, Flow, OpAttrs, OpView, result_names};
use super::types::{Type, TypeParser};
use super::{Argument, Attribute, Function, FunctionResult, Mesh, Operation, StableHloModule};
use crate::error::{Location, Result};
use crate::limits::MAX_NESTING_DEPTH;

pub(crate) fn parse(text: &str) -> Result<StableHloModule> {
    let mut p = Parser {
        c: Cursor::new(text),
        types: TypeParser::default(),
        module: StableHloModule {
            name: None,
            attributes: Vec::new(),
            meshes: Vec::new(),
            functions: Vec::new(),
            location_aliases: Vec::new(),
            alias_index: Default::default(),
            producer: None,
        },
        flow: Flow::default(),
        depth: 0,
        saw_module: false,
        function: None,
        groups: Vec::new(),
        operands: Vec::new(),
        facts: Vec::new(),
    };
    p.parse_top()?;
    Ok(p.module)
}

struct Parser<'a> {
    c: Cursor<'a>,
    types: TypeParser,
    module: StableHloModule,
    flow: Flow,
    /// Regions open around the position.
    depth: usize,
    /// Whether a `module` operation was read (a second one is nested or
    /// follows; its attributes are not the module's).
    saw_module: bool,
    /// The index of the function whose body is being read.
    function: Option<usize>,
    /// Vectors reused from one operation to the next.
    groups: Vec<(&'a str, usize)>,
    operands: Vec<&'a str>,
    facts: Vec<Option<Fact>>,
}

/// What a region being read has seen.
struct Region {
    /// The facts of the values the region's terminator returns.
    returned: Option<Vec<Option<Fact>>>,
    /// Regions around this one inside its function.
    depth: usize,
}

impl<'a> Parser<'a> {
    fn parse_top(&mut self) -> Result<()> {
        let mut top = Region {
            returned: None,
            depth: 0,
        };
        loop {
            self.c.skip_trivia();
            match self.c.peek() {
                None => break,
                Some(b'#') => self.parse_attribute_alias()?,
                Some(b'!') => self.parse_type_alias()?,
                Some(b'{') if self.c.rest().starts_with("{-#") => self.skip_resources()?,
                Some(_) => {
                    self.flow.enter_function();
                    self.parse_operation(&mut top)?;
                }
            }
        }
        Ok(())
    }

    /// `#name = ` or `!name = ` (the sigil at the cursor): the name, the
    /// cursor after `=`. `what` is `attribute` or `type`.
    fn alias_definition(&mut self, what: &str) -> Result<&'a str> {
        let at = self.c.location();
        self.c.bump(1);
        let Some(name) = self.c.suffix_id() else {
            return Err(error_at(at, format!("expected {what} alias name")));
        };
        self.c.skip_trivia();
        if !self.c.eat(b'=') {
            return Err(self
                .c
                .error(format!("expected '=' in {what} alias definition")));
        }
        self.c.skip_trivia();
        Ok(name)
    }

    /// `#name = value`: a location alias is kept, any other attribute
    /// alias skipped.
    fn parse_attribute_alias(&mut self) -> Result<()> {
        let name = self.alias_definition("attribute")?;
        let value = self.attribute_value()?;
        if let Some(loc) = value.strip_prefix("loc(").and_then(|v| v.strip_suffix(')')) {
            let aliases = &mut self.module.location_aliases;
            self.module
                .alias_index
                .entry(name.to_owned())
                .or_insert(aliases.len());
            aliases.push((name.to_owned(), loc.trim().to_owned()));
        }
        Ok(())
    }

    /// `!name = type`.
    fn parse_type_alias(&mut self) -> Result<()> {
        let name = self.alias_definition("type")?;
        let ty = self.types.parse_type(&mut self.c)?;
        self.types.aliases.insert(name.into(), ty);
        Ok(())
    }

    /// `{-# ... #-}`: the file's resources (dense blobs), skipped.
    fn skip_resources(&mut self) -> Result<()> {
        let at = self.c.location();
        let rest = self.c.rest();
        let Some(end) = rest.find("#-}") else {
            return Err(error_at(at, "'{-#' is never closed"));
        };
        let to = self.c.pos() + end + 3;
        self.c.advance_to(to);
        Ok(())
    }

    /// One attribute value, up to a `,`, `}` or line break outside
    /// brackets; returns its text.
    fn attribute_value(&mut self) -> Result<&'a str> {
        let start = self.c.pos();
        let mut end = start;
        loop {
            let before = self.c;
            if self.c.skip_trivia() {
                self.c = before;
                break;
            }
            match self.c.peek() {
                None | Some(b',' | b'}' | b')' | b']' | b'>') => break,
                Some(b'(' | b'[' | b'{' | b'<') => {
                    self.c.skip_group()?;
                }
                Some(_) => self.c.skip_token()?,
            }
            end = self.c.pos();
        }
        Ok(self.c.text()[start..end].trim())
    }

    /// `{name = value, unit, "quoted" = value}`.
    fn parse_attribute_dict(&mut self) -> Result<Vec<Attribute>> {
        self.c.expect(b'{')?;
        self.comma_list(b'}', "attribute dictionary", |p| {
            let location = p.c.location();
            let name = if p.c.peek() == Some(b'"') {
                unescape(p.c.string()?)
            } else {
                match p.c.bare_id() {
                    Some(id) => id.to_owned(),
                    None => return Err(p.c.error("expected attribute name")),
                }
            };
            p.c.skip_trivia();
            let value = if p.c.eat(b'=') {
                p.c.skip_trivia();
                p.attribute_value()?.to_owned()
            } else {
                String::new()
            };
            Ok(Attribute {
                name,
                value,
                location,
            })
        })
    }

    /// An attribute dictionary if one starts at the position, else none.
    fn optional_attribute_dict(&mut self) -> Result<Vec<Attribute>> {
        if self.c.peek() == Some(b'{') {
            self.parse_attribute_dict()
        } else {
            Ok(Vec::new())
        }
    }

    /// Items separated by `,` up to `close` (consumed; the opening bracket
    /// already is), as MLIR's `parseCommaSeparatedList`: `item` reads one
    /// from its first token.
    fn comma_list<T>(
        &mut self,
        close: u8,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut items = Vec::new();
        self.c.skip_trivia();
        if self.c.eat(close) {
            return Ok(items);
        }
        loop {
            self.c.skip_trivia();
            items.push(item(self)?);
            if self.c.list_next(close, what)? {
                return Ok(items);
            }
        }
    }

    /// `loc(...)` at the cursor, if there: its text inside the parentheses.
    fn trailing_location(&mut self) -> Result<Option<&'a str>> {
        let saved = self.c;
        self.c.skip_trivia();
        if self.c.rest().starts_with("loc(") {
            self.c.bump(3);
            let group = self.c.skip_group()?;
            return Ok(Some(group[1..group.len() - 1].trim()));
        }
        self.c = saved;
        Ok(None)
    }

    /// One operation, into `region`.
    fn parse_operation(&mut self, region: &mut Region) -> Result<()> {
        let location = self.c.location();
        let start = self.c.pos();
        // Results: `%0`, `%0:2`, `%a, %b`, then `=`. The vectors of the
        // outermost operation being read are reused (a nested one makes
        // its own), so that most operations allocate none.
        let mut groups = std::mem::take(&mut self.groups);
        groups.clear();
        let result = self.parse_operation_with(region, location, start, &mut groups);
        self.groups = groups;
        result
    }

    fn parse_operation_with(
        &mut self,
        region: &mut Region,
        location: Location,
        start: usize,
        groups: &mut Vec<(&'a str, usize)>,
    ) -> Result<()> {
        while self.c.peek() == Some(b'%') {
            let at = self.c.location();
            self.c.bump(1);
            let Some(name) = self.c.suffix_id() else {
                return Err(error_at(at, "expected SSA value name"));
            };
            let mut count = 1;
            if self.c.eat(b':') {
                let at = self.c.location();
                count = self
                    .c
                    .decimal()
                    .and_then(|d| d.parse::<usize>().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| error_at(at, "expected result count"))?;
            }
            groups.push((name, count));
            self.c.skip_trivia();
            if self.c.eat(b',') {
                self.c.skip_trivia();
                continue;
            }
            if !self.c.eat(b'=') {
                return Err(self.c.error("expected '=' after operation results"));
            }
            self.c.skip_trivia();
            break;
        }
        let results_text = self.c.text()[start..self.c.pos()]
            .trim_end()
            .trim_end_matches('=')
            .trim_end();
        let name_start = self.c.pos();
        let name: Cow<'a, str> = match self.c.peek() {
            Some(b'"') => {
                let raw = self.c.string()?;
                if raw.contains('\\') {
                    Cow::Owned(unescape(raw))
                } else {
                    Cow::Borrowed(raw)
                }
            }
            Some(c) if is_id_start(c) => Cow::Borrowed(self.c.bare_id().unwrap_or_default()),
            _ => return Err(self.c.error("expected operation name")),
        };
        if !name.contains('.')
            && self.c.text().as_bytes()[name_start] != b'"'
            && !DEFAULT_DIALECT.contains(&name.as_ref())
        {
            return Err(error_at(location, format!("custom op '{name}' is unknown")));
        }
        match name.as_ref() {
            "module" | "builtin.module" if groups.is_empty() => {
                return self.parse_module(location);
            }
            "func.func" if groups.is_empty() => return self.parse_function(location),
            "sdy.mesh" if groups.is_empty() => return self.parse_mesh(location),
            _ => {}
        }
        let result_count: usize = groups.iter().map(|g| g.1).sum();
        // The operation's place in its function's list, taken before its
        // regions' operations.
        let slot = self.function.and_then(|f| {
            let ops = &mut self.module.functions.get_mut(f)?.operations;
            ops.push(Operation {
                name: name.clone().into_owned(),
                results: results_text.to_owned(),
                result_types: Vec::new(),
                location,
                debug_location: None,
                depth: region.depth,
            });
            Some(ops.len() - 1)
        });
        let mut operands = std::mem::take(&mut self.operands);
        operands.clear();
        let body = self.parse_operation_body(region.depth, &mut operands);
        let result = body.and_then(|body| {
            self.finish_operation(
                region,
                location,
                &name,
                &self.c.text()[name_start..body.end],
                groups,
                result_count,
                &operands,
                body,
                slot,
            )
        });
        self.operands = operands;
        result
    }

    /// The rest of an operation once its body is read: its types, the
    /// facts of its results, its place in the function.
    #[allow(clippy::too_many_arguments)]
    fn finish_operation(
        &mut self,
        region: &mut Region,
        location: Location,
        name: &str,
        text: &'a str,
        groups: &[(&'a str, usize)],
        result_count: usize,
        operands: &[&'a str],
        body: Body<'a>,
        slot: Option<usize>,
    ) -> Result<()> {
        let base = name
            .strip_prefix("stablehlo.")
            .or_else(|| name.strip_prefix("mhlo."))
            .unwrap_or(name);
        let want_operand_types = OPERAND_TYPES.contains(&base);
        let (operand_types, result_types) = match body.last_colon {
            Some(colon) if result_count > 0 => {
                self.signature_types(colon, result_count, location, want_operand_types)?
            }
            _ => (None, Vec::new()),
        };
        if result_types.len() != result_count {
            return Err(error_at(
                location,
                format!("expected {result_count} result types after ':' in '{name}'"),
            ));
        }
        let op = OpView {
            name,
            attrs: OpAttrs::Text(text),
            operands,
            operand_types: operand_types.as_deref(),
            result_types: &result_types,
            region_result: body.first_region_result.as_deref(),
        };
        self.flow.apply(
            &op,
            result_names(groups),
            is_terminator(name),
            &mut self.facts,
            &mut region.returned,
        );
        if let Some(op) = self.module.operation_mut(self.function, slot) {
            op.result_types = result_types;
            op.debug_location = body.location.map(str::to_owned);
        }
        Ok(())
    }

    /// The types after an operation's last top-level `:`: a functional
    /// type's operand and result types, or the last `count` types of a
    /// list.
    fn signature_types(
        &self,
        colon: Cursor<'a>,
        count: usize,
        op: Location,
        want_operands: bool,
    ) -> Result<(Option<Vec<Type>>, Vec<Type>)> {
        let mut c = colon;
        c.skip_trivia();
        if c.peek() == Some(b'(') {
            let operands = if want_operands {
                c.bump(1);
                self.type_list(&mut c, b')')?
            } else {
                c.skip_group()?;
                Vec::new()
            };
            c.skip_trivia();
            if !c.eat_str("->") {
                return Err(c.error("expected '->' in function type"));
            }
            c.skip_trivia();
            let results = if c.eat(b'(') {
                self.type_list(&mut c, b')')?
            } else {
                vec![self.types.parse_type(&mut c)?]
            };
            return Ok((Some(operands), results));
        }
        let mut types = Vec::new();
        loop {
            if !TypeParser::starts_type(&c) {
                if types.is_empty() {
                    return Err(error_at(op, "expected result types after ':'"));
                }
                break;
            }
            types.push(self.types.parse_type(&mut c)?);
            let after = c;
            c.skip_trivia();
            if c.eat_str("->") {
                // A functional type without parentheses around its one
                // operand type: `t -> (t, t)`.
                c.skip_trivia();
                let results = if c.eat(b'(') {
                    self.type_list(&mut c, b')')?
                } else {
                    vec![self.types.parse_type(&mut c)?]
                };
                return Ok((want_operands.then_some(types), results));
            }
            if !c.eat(b',') {
                let _ = after;
                break;
            }
            c.skip_trivia();
        }
        let skip = types.len().saturating_sub(count);
        Ok((None, types.split_off(skip)))
    }

    /// Types separated by `,` up to `close` (consumed).
    fn type_list(&self, c: &mut Cursor<'a>, close: u8) -> Result<Vec<Type>> {
        let mut types = Vec::new();
        c.skip_trivia();
        if c.eat(close) {
            return Ok(types);
        }
        loop {
            c.skip_trivia();
            types.push(self.types.parse_type(c)?);
            if c.list_next(close, "type list")? {
                return Ok(types);
            }
        }
    }

    /// The rest of an operation after its name, in any form: balanced
    /// text, regions read as operations, up to its end.
    fn parse_operation_body(
        &mut self,
        depth: usize,
        operands: &mut Vec<&'a str>,
    ) -> Result<Body<'a>> {
        let mut body = Body {
            last_colon: None,
            location: None,
            first_region_result: None,
            end: self.c.pos(),
        };
        let mut stack = Brackets::new();
        let mut regions = 0usize;
        loop {
            let before = self.c;
            let newline = self.c.skip_trivia();
            if stack.is_empty() && (self.c.at_end() || (newline && self.ends_operation())) {
                self.c = before;
                break;
            }
            let Some(ch) = self.c.peek() else {
                let (open, at) = stack.last().unwrap_or((b')', self.c.location()));
                return Err(error_at(at, format!("'{}' is never closed", opening(open))));
            };
            match ch {
                b'{' if self.region_starts() => {
                    let result = self.parse_region(depth + 1)?;
                    if regions == 0 {
                        body.first_region_result = result;
                    }
                    regions += 1;
                }
                b'(' | b'[' | b'{' | b'<' => {
                    stack.push(super::cursor::closing(ch), self.c.location());
                    self.c.bump(1);
                }
                b')' | b']' | b'}' | b'>' => {
                    let Some((want, _)) = stack.pop() else {
                        // Closes what encloses the operation.
                        self.c = before;
                        break;
                    };
                    if want != ch {
                        return Err(self.c.error(format!(
                            "expected '{}', found '{}'",
                            want as char, ch as char
                        )));
                    }
                    self.c.bump(1);
                }
                b'-' if self.c.peek_at(1) == Some(b'>') => self.c.bump(2),
                b':' if stack.is_empty() => {
                    self.c.bump(1);
                    body.last_colon = Some(self.c);
                }
                b'%' => {
                    self.c.bump(1);
                    let name_start = self.c.pos() - 1;
                    if self.c.suffix_id().is_none() {
                        return Err(self.c.error("expected SSA value name"));
                    }
                    if self.c.peek() == Some(b'#') {
                        let save = self.c;
                        self.c.bump(1);
                        if self.c.decimal().is_none() {
                            self.c = save;
                        }
                    }
                    let value = &self.c.text()[name_start..self.c.pos()];
                    let mut look = self.c;
                    look.skip_spaces();
                    let defined = match look.peek() {
                        Some(b'=') => true,
                        Some(b':') => stack.last().is_some_and(|(c, _)| c == b')'),
                        _ => false,
                    };
                    if !defined {
                        operands.push(value);
                    } else if look.peek() == Some(b':') {
                        // A region argument in a custom form: `(%arg1:
                        // tensor<f32>)`.
                        self.flow.set(value, None);
                    }
                }
                b'l' if stack.is_empty() && self.c.rest().starts_with("loc(") => {
                    self.c.bump(3);
                    let group = self.c.skip_group()?;
                    body.location = Some(group[1..group.len() - 1].trim());
                }
                _ => self.c.skip_token()?,
            }
            body.end = self.c.pos();
        }
        Ok(body)
    }

    /// At a line break outside brackets inside an operation: whether the
    /// next line starts something else.
    fn ends_operation(&self) -> bool {
        let c = self.c;
        match c.peek() {
            None => true,
            Some(b'{' | b':') => false,
            Some(b'-') => c.peek_at(1) != Some(b'>'),
            Some(ch) if is_id_start(ch) => {
                let mut look = c;
                let id = look.bare_id().unwrap_or_default();
                if id.contains('.') {
                    return true;
                }
                look.skip_spaces();
                !matches!(look.peek(), Some(b'{' | b'('))
            }
            Some(_) => true,
        }
    }

    /// At `{` inside an operation: whether it opens a region (rather than
    /// an attribute dictionary). A region starts with a line break, a
    /// block label, a value or an operation; a dictionary with a name
    /// followed by `=`, `,` or `}`.
    fn region_starts(&self) -> bool {
        let mut look = self.c;
        look.bump(1);
        look.skip_spaces();
        match look.peek() {
            None | Some(b'\n') => true,
            Some(b'/') => look.peek_at(1) == Some(b'/'),
            Some(b'%' | b'^') => true,
            Some(b'"') => {
                if look.string().is_err() {
                    return false;
                }
                look.skip_spaces();
                look.peek() == Some(b'(')
            }
            Some(ch) if is_id_start(ch) => {
                look.bare_id();
                look.skip_spaces();
                !matches!(look.peek(), Some(b'=' | b',' | b'}'))
            }
            _ => false,
        }
    }

    /// Fails when one more region, opening at `open`, would nest deeper
    /// than [`MAX_NESTING_DEPTH`].
    fn check_depth(&self, open: Location) -> Result<()> {
        if self.depth >= MAX_NESTING_DEPTH {
            return Err(error_at(
                open,
                format!("region nesting exceeds the limit of {MAX_NESTING_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    /// A region at `{`: blocks of operations up to the matching `}`.
    /// Returns the facts of the values its first terminator returns.
    fn parse_region(&mut self, depth: usize) -> Result<Option<Vec<Option<Fact>>>> {
        let open = self.c.location();
        self.check_depth(open)?;
        self.c.bump(1);
        self.depth += 1;
        self.flow.enter_region();
        let mut region = Region {
            returned: None,
            depth,
        };
        let result = self.region_operations(Some(&mut region), open);
        self.flow.leave();
        self.depth -= 1;
        result?;
        Ok(region.returned)
    }

    /// The operations of a region (a function's body too), after its
    /// `{`, up to and past its `}`. A module's region (`region` None):
    /// each operation starts afresh, as a function does.
    fn region_operations(&mut self, mut region: Option<&mut Region>, open: Location) -> Result<()> {
        loop {
            self.c.skip_trivia();
            match self.c.peek() {
                None => return Err(error_at(open, "'{' is never closed")),
                Some(b'}') => {
                    self.c.bump(1);
                    return Ok(());
                }
                Some(b'^') => self.parse_block_label()?,
                Some(_) => match region.as_deref_mut() {
                    Some(region) => self.parse_operation(region)?,
                    None => {
                        self.flow.enter_function();
                        self.parse_operation(&mut Region {
                            returned: None,
                            depth: 0,
                        })?;
                    }
                },
            }
        }
    }

    /// `^bb0(%arg1: type loc(...), ...):`.
    fn parse_block_label(&mut self) -> Result<()> {
        let at = self.c.location();
        self.c.bump(1);
        if self.c.suffix_id().is_none() {
            return Err(error_at(at, "expected block name"));
        }
        self.c.skip_trivia();
        if self.c.eat(b'(') {
            self.comma_list(b')', "block arguments", |p| {
                let at = p.c.location();
                if !p.c.eat(b'%') || p.c.suffix_id().is_none() {
                    return Err(error_at(at, "expected block argument"));
                }
                p.c.skip_trivia();
                p.c.expect(b':')?;
                p.c.skip_trivia();
                p.types.parse_type(&mut p.c)?;
                p.trailing_location()?;
                Ok(())
            })?;
            self.c.skip_trivia();
        }
        self.c.expect(b':')
    }
}

/// The operations whose operand types the layout rules look at (to tell a
/// reshape, slice, pad or broadcast that changes nothing); the others'
/// are not read.
const OPERAND_TYPES: &[&str] = &["reshape", "slice", "pad", "concatenate", "broadcast_in_dim"];

/// The operations MLIR reads without their dialect's name: the builtin
/// dialect's (at the top) and the `func` dialect's (inside functions).
const DEFAULT_DIALECT: &[&str] = &[
    "module",
    "unrealized_conversion_cast",
    "return",
    "call",
    "call_indirect",
    "constant",
];

/// What [`Parser::parse_operation_body`] found.
struct Body<'a> {
    /// The cursor just after the last `:` outside brackets.
    last_colon: Option<Cursor<'a>>,
    /// The trailing `loc(...)`'s text.
    location: Option<&'a str>,
    /// What the first region returns.
    first_region_result: Option<Vec<Option<Fact>>>,
    /// Where the operation ends.
    end: usize,
}

/// The opening bracket of `close`.
fn opening(close: u8) -> char {
    match close {
        b')' => '(',
        b']' => '[',
        b'}' => '{',
        _ => '<',
    }
}

/// Whether `name` is a region's terminator, whose operands the region
/// returns.
fn is_terminator(name: &str) -> bool {
    matches!(
        name,
        "return" | "func.return" | "stablehlo.return" | "mhlo.return" | "sdy.return"
    )
}

impl<'a> Parser<'a> {
    /// `module [@name] [attributes {...}] {...} [loc(...)]`.
    fn parse_module(&mut self, _location: Location) -> Result<()> {
        let first = !self.saw_module;
        self.saw_module = true;
        self.c.skip_trivia();
        if self.c.eat(b'@') {
            let at = self.c.location();
            let name = if self.c.peek() == Some(b'"') {
                unescape(self.c.string()?)
            } else {
                self.c
                    .suffix_id()
                    .ok_or_else(|| error_at(at, "expected module name"))?
                    .to_owned()
            };
            if first {
                self.module.name = Some(name);
            }
            self.c.skip_trivia();
        }
        if self.c.eat_keyword("attributes") {
            self.c.skip_trivia();
            let attributes = self.parse_attribute_dict()?;
            if first {
                self.module.attributes = attributes;
            }
            self.c.skip_trivia();
        }
        let open = self.c.location();
        if !self.c.eat(b'{') {
            return Err(self.c.error("expected '{' to begin the module's region"));
        }
        self.check_depth(open)?;
        self.depth += 1;
        let result = self.region_operations(None, open);
        self.depth -= 1;
        result?;
        self.trailing_location()?;
        Ok(())
    }

    /// `sdy.mesh @name = <...> [{...}]`.
    fn parse_mesh(&mut self, location: Location) -> Result<()> {
        self.c.skip_trivia();
        let at = self.c.location();
        if !self.c.eat(b'@') {
            return Err(error_at(at, "expected '@' and the mesh's name"));
        }
        let name = self
            .c
            .suffix_id()
            .ok_or_else(|| error_at(at, "expected the mesh's name"))?
            .to_owned();
        self.c.skip_trivia();
        self.c.expect(b'=')?;
        self.c.skip_trivia();
        let value = if self.c.peek() == Some(b'<') {
            self.c.skip_group()?.to_owned()
        } else {
            self.attribute_value()?.to_owned()
        };
        // The rest: an attribute dictionary, a location.
        let mut operands = Vec::new();
        self.parse_operation_body(0, &mut operands)?;
        self.module.meshes.push(Mesh {
            name,
            value,
            location,
        });
        Ok(())
    }

    /// `func.func [visibility] @name(args) [-> results] [attributes {...}]
    /// [{body}] [loc(...)]`.
    fn parse_function(&mut self, location: Location) -> Result<()> {
        self.c.skip_trivia();
        let mut visibility = None;
        for v in ["public", "private", "nested"] {
            if self.c.eat_keyword(v) {
                visibility = Some(v.to_owned());
                self.c.skip_trivia();
                break;
            }
        }
        let at = self.c.location();
        if !self.c.eat(b'@') {
            return Err(error_at(at, "expected '@' and the function's name"));
        }
        let name = if self.c.peek() == Some(b'"') {
            unescape(self.c.string()?)
        } else {
            self.c
                .suffix_id()
                .ok_or_else(|| error_at(at, "expected the function's name"))?
                .to_owned()
        };
        self.c.skip_trivia();
        self.c.expect(b'(')?;
        let arguments = self.parse_arguments()?;
        self.c.skip_trivia();
        let mut results = Vec::new();
        if self.c.eat_str("->") {
            self.c.skip_trivia();
            if self.c.eat(b'(') {
                results = self.comma_list(b')', "the function's results", |p| {
                    let location = p.c.location();
                    let ty = p.types.parse_type(&mut p.c)?;
                    p.c.skip_trivia();
                    let attributes = p.optional_attribute_dict()?;
                    Ok(FunctionResult {
                        ty,
                        attributes,
                        location,
                    })
                })?;
            } else {
                let location = self.c.location();
                let ty = self.types.parse_type(&mut self.c)?;
                results.push(FunctionResult {
                    ty,
                    attributes: Vec::new(),
                    location,
                });
            }
            self.c.skip_trivia();
        }
        let mut attributes = Vec::new();
        if self.c.eat_keyword("attributes") {
            self.c.skip_trivia();
            attributes = self.parse_attribute_dict()?;
            self.c.skip_trivia();
        }
        let result_count = results.len();
        self.module.functions.push(Function {
            name,
            visibility,
            arguments,
            results,
            attributes,
            operations: Vec::new(),
            location,
            result_facts: Vec::new(),
        });
        if self.c.peek() == Some(b'{') {
            let open = self.c.location();
            self.check_depth(open)?;
            self.c.bump(1);
            self.depth += 1;
            self.flow.enter_function();
            let outer = self.function.replace(self.module.functions.len() - 1);
            let mut region = Region {
                returned: None,
                depth: 0,
            };
            let result = self.region_operations(Some(&mut region), open);
            self.function = outer;
            self.depth -= 1;
            result?;
            if let Some(f) = self.module.functions.last_mut() {
                let facts = region.returned.unwrap_or_default();
                if facts.len() == result_count && facts.iter().any(Option::is_some) {
                    f.result_facts = facts;
                }
            }
        }
        self.trailing_location()?;
        Ok(())
    }

    /// A function's arguments after `(`, up to and past `)`.
    fn parse_arguments(&mut self) -> Result<Vec<Argument>> {
        self.comma_list(b')', "the function's arguments", |p| {
            let location = p.c.location();
            let mut name = String::new();
            if p.c.eat(b'%') {
                name =
                    p.c.suffix_id()
                        .ok_or_else(|| error_at(location, "expected argument name"))?
                        .to_owned();
                p.c.skip_trivia();
                p.c.expect(b':')?;
                p.c.skip_trivia();
            }
            let ty = p.types.parse_type(&mut p.c)?;
            p.c.skip_trivia();
            let attributes = p.optional_attribute_dict()?;
            let debug_location = p.trailing_location()?.map(str::to_owned);
            Ok(Argument {
                name,
                ty,
                attributes,
                debug_location,
                location,
            })
        })
    }
}
