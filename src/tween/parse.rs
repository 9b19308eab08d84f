//! Reading easings from strings such as `"easeOutCubic"` or `"cubicBezier(.4,0,.2,1)"`.
//!
//! Level files and settings are written by hand, so every error says what was wrong, the
//! 1-based column (in characters) where it was found, and what would have been accepted.

use std::fmt;

use super::bezier::CubicBezier;
use super::easing::{Easing, StepPosition};
use super::spring::{Spring, SpringError};

/// Short form of every accepted spelling, quoted in "unknown name" errors.
pub const ALLOWED: &str = "linear, ease{In,Out,InOut}{Quad,Cubic,Quart,Quint,Sine,Expo,Circ}, \
easeOutBack, easeOutElastic, easeOutBounce, ease, ease-in, ease-out, ease-in-out, \
cubicBezier(x1,y1,x2,y2), spring(stiffness,damping), steps(n,start|end)";

/// Largest accepted `steps` count; more than this is indistinguishable from linear on screen.
pub const MAX_STEPS: u32 = 10_000;

/// What went wrong; see [`EasingParseError`] for the full message.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseErrorKind {
    Empty,
    /// Something other than a letter where a curve name must start.
    ExpectedName {
        found: String,
    },
    UnknownName {
        name: String,
        suggestion: Option<String>,
    },
    TakesNoArguments {
        name: String,
    },
    MissingArguments {
        usage: &'static str,
    },
    ArgumentCount {
        usage: &'static str,
        expected: &'static str,
        found: usize,
    },
    MissingValue {
        what: &'static str,
    },
    NotANumber {
        what: &'static str,
        found: String,
    },
    OutOfRange {
        what: &'static str,
        found: String,
        allowed: &'static str,
    },
    BadKeyword {
        what: &'static str,
        found: String,
        allowed: &'static str,
    },
    Unclosed,
    Trailing {
        found: String,
    },
}

/// A string that is not a valid easing.
#[derive(Clone, Debug, PartialEq)]
pub struct EasingParseError {
    pub input: String,
    /// 1-based character column of the problem.
    pub column: usize,
    pub kind: ParseErrorKind,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::Empty => write!(f, "the string is empty; allowed: {ALLOWED}"),
            ParseErrorKind::ExpectedName { found } => {
                write!(
                    f,
                    "expected a curve name, found \"{found}\"; allowed: {ALLOWED}"
                )
            }
            ParseErrorKind::UnknownName { name, suggestion } => {
                write!(f, "unknown curve \"{name}\"")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean \"{s}\"?)")?;
                }
                write!(f, "; allowed: {ALLOWED}")
            }
            ParseErrorKind::TakesNoArguments { name } => {
                write!(f, "\"{name}\" takes no arguments; write just \"{name}\"")
            }
            ParseErrorKind::MissingArguments { usage } => {
                write!(f, "arguments are missing; write {usage}")
            }
            ParseErrorKind::ArgumentCount {
                usage,
                expected,
                found,
            } => write!(f, "expected {expected}, found {found}; write {usage}"),
            ParseErrorKind::MissingValue { what } => write!(f, "the value for {what} is missing"),
            ParseErrorKind::NotANumber { what, found } => {
                write!(f, "{what} must be a number, found \"{found}\"")
            }
            ParseErrorKind::OutOfRange {
                what,
                found,
                allowed,
            } => write!(f, "{what} must be {allowed}, found {found}"),
            ParseErrorKind::BadKeyword {
                what,
                found,
                allowed,
            } => write!(f, "{what} must be {allowed}, found \"{found}\""),
            ParseErrorKind::Unclosed => write!(f, "missing \")\" at the end"),
            ParseErrorKind::Trailing { found } => {
                write!(f, "unexpected \"{found}\" after the curve")
            }
        }
    }
}

impl fmt::Display for EasingParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid easing \"{}\" at column {}: {}",
            self.input, self.column, self.kind
        )
    }
}

impl std::error::Error for EasingParseError {}

/// One argument between the parentheses, with the column where its text starts.
struct Arg<'a> {
    text: &'a str,
    column: usize,
}

struct Parser<'a> {
    input: &'a str,
}

impl<'a> Parser<'a> {
    fn column_of(&self, byte: usize) -> usize {
        self.input[..byte].chars().count() + 1
    }

    fn error(&self, byte: usize, kind: ParseErrorKind) -> EasingParseError {
        EasingParseError {
            input: self.input.to_string(),
            column: self.column_of(byte),
            kind,
        }
    }

    fn error_at_column(&self, column: usize, kind: ParseErrorKind) -> EasingParseError {
        EasingParseError {
            input: self.input.to_string(),
            column,
            kind,
        }
    }

    fn skip_ws(&self, mut at: usize) -> usize {
        while let Some(c) = self.input[at..].chars().next() {
            if !c.is_whitespace() {
                break;
            }
            at += c.len_utf8();
        }
        at
    }

    fn parse(&self) -> Result<Easing, EasingParseError> {
        let start = self.skip_ws(0);
        if start == self.input.len() {
            return Err(self.error(start, ParseErrorKind::Empty));
        }
        let mut end = start;
        for c in self.input[start..].chars() {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                end += c.len_utf8();
            } else {
                break;
            }
        }
        if end == start {
            let found: String = self.input[start..].chars().take(1).collect();
            return Err(self.error(start, ParseErrorKind::ExpectedName { found }));
        }
        let name = &self.input[start..end];
        let after_name = self.skip_ws(end);
        let args = if self.input[after_name..].starts_with('(') {
            Some(self.arguments(after_name)?)
        } else {
            if after_name < self.input.len() {
                return Err(self.error(
                    after_name,
                    ParseErrorKind::Trailing {
                        found: self.input[after_name..].trim_end().to_string(),
                    },
                ));
            }
            None
        };
        self.build(name, start, after_name, args)
    }

    /// Splits `( a , b )` into trimmed arguments and checks nothing follows the `)`.
    fn arguments(&self, open: usize) -> Result<Vec<Arg<'a>>, EasingParseError> {
        let body_start = open + 1;
        let close = match self.input[body_start..].find(')') {
            Some(i) => body_start + i,
            None => {
                return Err(
                    self.error_at_column(self.input.chars().count() + 1, ParseErrorKind::Unclosed)
                )
            }
        };
        let rest = self.skip_ws(close + 1);
        if rest < self.input.len() {
            return Err(self.error(
                rest,
                ParseErrorKind::Trailing {
                    found: self.input[rest..].trim_end().to_string(),
                },
            ));
        }
        let body = &self.input[body_start..close];
        if body.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut args = Vec::new();
        let mut piece_start = body_start;
        for piece in body.split(',') {
            let lead = piece.len() - piece.trim_start().len();
            let text = piece.trim();
            // An empty piece points at where its value should have been.
            args.push(Arg {
                text,
                column: self.column_of(piece_start + lead.min(piece.len())),
            });
            piece_start += piece.len() + 1;
        }
        Ok(args)
    }

    fn build(
        &self,
        name: &str,
        name_at: usize,
        args_at: usize,
        args: Option<Vec<Arg<'a>>>,
    ) -> Result<Easing, EasingParseError> {
        let simple = match name {
            "ease" => Some(Easing::CubicBezier(CubicBezier::EASE)),
            "ease-in" => Some(Easing::CubicBezier(CubicBezier::EASE_IN)),
            "ease-out" => Some(Easing::CubicBezier(CubicBezier::EASE_OUT)),
            "ease-in-out" => Some(Easing::CubicBezier(CubicBezier::EASE_IN_OUT)),
            _ => Easing::named()
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, e)| e),
        };
        if let Some(easing) = simple {
            return match args {
                None => Ok(easing),
                Some(_) => Err(self.error(
                    args_at,
                    ParseErrorKind::TakesNoArguments {
                        name: name.to_string(),
                    },
                )),
            };
        }
        let (usage, expected_names): (&'static str, &[&'static str]) = match name {
            "cubicBezier" => ("cubicBezier(x1,y1,x2,y2)", &["x1", "y1", "x2", "y2"]),
            "spring" => ("spring(stiffness,damping)", &["stiffness", "damping"]),
            "steps" => ("steps(n,start|end)", &["n", "position"]),
            _ => {
                return Err(self.error(
                    name_at,
                    ParseErrorKind::UnknownName {
                        name: name.to_string(),
                        suggestion: suggest(name),
                    },
                ))
            }
        };
        let args = match args {
            Some(a) if !a.is_empty() => a,
            _ => return Err(self.error(args_at, ParseErrorKind::MissingArguments { usage })),
        };
        let count_ok = args.len() == expected_names.len() || (name == "steps" && args.len() == 1);
        if !count_ok {
            let expected = match name {
                "cubicBezier" => "4 arguments",
                "spring" => "2 arguments",
                _ => "1 or 2 arguments",
            };
            return Err(self.error(
                args_at,
                ParseErrorKind::ArgumentCount {
                    usage,
                    expected,
                    found: args.len(),
                },
            ));
        }
        match name {
            "cubicBezier" => {
                let mut v = [0.0f32; 4];
                for (i, arg) in args.iter().enumerate() {
                    let what = expected_names[i];
                    let x = self.number(arg, what)?;
                    let is_x = i % 2 == 0;
                    if is_x && !(0.0..=1.0).contains(&x) {
                        return Err(self.range(arg, what, "between 0 and 1"));
                    }
                    v[i] = x as f32;
                }
                Ok(Easing::CubicBezier(CubicBezier::new(
                    v[0], v[1], v[2], v[3],
                )))
            }
            "spring" => {
                let k = self.number(&args[0], "stiffness")?;
                let c = self.number(&args[1], "damping")?;
                match Spring::new(k as f32, c as f32) {
                    Ok(s) => Ok(Easing::Spring(s)),
                    Err(SpringError::Stiffness) => {
                        Err(self.range(&args[0], "stiffness", "greater than 0"))
                    }
                    Err(SpringError::Damping) => {
                        Err(self.range(&args[1], "damping", "greater than 0"))
                    }
                }
            }
            _ => {
                let n = self.number(&args[0], "the step count n")?;
                if n.fract() != 0.0 || n < 1.0 || n > MAX_STEPS as f64 {
                    return Err(self.range(
                        &args[0],
                        "the step count n",
                        "a whole number from 1 to 10000",
                    ));
                }
                let position = match args.get(1) {
                    None => StepPosition::End,
                    Some(a) if a.text == "end" || a.text == "jump-end" => StepPosition::End,
                    Some(a) if a.text == "start" || a.text == "jump-start" => StepPosition::Start,
                    Some(a) if a.text.is_empty() => {
                        return Err(self.error_at_column(
                            a.column,
                            ParseErrorKind::MissingValue {
                                what: "the step position",
                            },
                        ))
                    }
                    Some(a) => {
                        return Err(self.error_at_column(
                            a.column,
                            ParseErrorKind::BadKeyword {
                                what: "the step position",
                                found: a.text.to_string(),
                                allowed: "\"start\" or \"end\"",
                            },
                        ))
                    }
                };
                Ok(Easing::Steps {
                    count: n as u32,
                    position,
                })
            }
        }
    }

    fn number(&self, arg: &Arg<'_>, what: &'static str) -> Result<f64, EasingParseError> {
        if arg.text.is_empty() {
            return Err(self.error_at_column(arg.column, ParseErrorKind::MissingValue { what }));
        }
        // Only plain decimal spellings; Rust would also accept "inf" and "NaN".
        let plain = arg
            .text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
        match arg.text.parse::<f64>() {
            Ok(v) if plain && v.is_finite() => Ok(v),
            _ => Err(self.error_at_column(
                arg.column,
                ParseErrorKind::NotANumber {
                    what,
                    found: arg.text.to_string(),
                },
            )),
        }
    }

    fn range(&self, arg: &Arg<'_>, what: &'static str, allowed: &'static str) -> EasingParseError {
        self.error_at_column(
            arg.column,
            ParseErrorKind::OutOfRange {
                what,
                found: arg.text.to_string(),
                allowed,
            },
        )
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            row[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()]
}

/// The closest accepted name, when it is close enough to be a likely typo.
fn suggest(name: &str) -> Option<String> {
    let mut candidates: Vec<String> = Easing::named().into_iter().map(|(n, _)| n).collect();
    for extra in [
        "ease",
        "ease-in",
        "ease-out",
        "ease-in-out",
        "cubicBezier",
        "spring",
        "steps",
    ] {
        candidates.push(extra.to_string());
    }
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, &c), c))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl Easing {
    /// Parses an easing from its string form. Whitespace around names and arguments is allowed.
    pub fn parse(input: &str) -> Result<Easing, EasingParseError> {
        Parser { input }.parse()
    }
}
