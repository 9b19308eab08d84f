//! Argument values shared by every subcommand (`throng`, `throng bench`): the crowd limit, the
//! window size and the uniform-vector cap, each with a parser whose errors say what is allowed.
//! Kept apart from `cli` so that `bench`'s own arguments can use them while `cli` names
//! `bench`'s argument struct as a subcommand.

/// The most people the game will simulate (the level schema's limit too).
pub const MAX_CROWD: u32 = 1_000_000;

/// Fewest vectors that still fit one crowd instance (5) beside the shader's own 5.
pub const MIN_UNIFORM_VECTORS: u32 = 10;

pub fn parse_uniform_vectors(s: &str) -> Result<u32, String> {
    let allowed = format!("allowed: {MIN_UNIFORM_VECTORS} to 65536 (256 is the GL 3.3 minimum)");
    match s.trim().parse::<u32>() {
        Ok(n) if (MIN_UNIFORM_VECTORS..=65536).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} vectors: {allowed}")),
        Err(_) => Err(format!("`{s}` is not a whole number; {allowed}")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowSize {
    pub width: u32,
    pub height: u32,
}

pub fn parse_size(s: &str) -> Result<WindowSize, String> {
    let allowed = "allowed: WIDTHxHEIGHT with each side 64 to 8192, e.g. 1280x720";
    let (w, h) = s
        .trim()
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not WIDTHxHEIGHT; {allowed}"))?;
    let side = |v: &str| -> Result<u32, String> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: `{v}` is not a whole number; {allowed}"))?;
        if !(64..=8192).contains(&n) {
            return Err(format!("`{s}`: {n} is out of range; {allowed}"));
        }
        Ok(n)
    };
    Ok(WindowSize {
        width: side(w)?,
        height: side(h)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_allowed() {
        assert_eq!(
            parse_size("1280x720"),
            Ok(WindowSize {
                width: 1280,
                height: 720
            })
        );
        assert_eq!(
            parse_size("12x720").unwrap_err(),
            "`12x720`: 12 is out of range; allowed: WIDTHxHEIGHT with each side 64 to 8192, e.g. 1280x720"
        );
        assert!(parse_size("big")
            .unwrap_err()
            .starts_with("`big` is not WIDTHxHEIGHT"));
        assert!(parse_size("-5x10")
            .unwrap_err()
            .contains("`-5` is not a whole number"));
    }
}
