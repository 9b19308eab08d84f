//! Argument values shared by every subcommand (`throng`, `throng bench`): the crowd limit, the
//! window size, the uniform-vector cap, frame counts and seeds, each with a parser whose errors
//! say what is allowed. Flags that take numbers accept a leading `-` as their value (clap's
//! `allow_hyphen_values`), so `--seed -1` is refused here with the range instead of clap's tip
//! to write `-- -1`, which would pass -1 as the level path.
//! Kept apart from `cli` so that `bench`'s own arguments can use them while `cli` names
//! `bench`'s argument struct as a subcommand.

/// The most people the game will simulate (the level schema's limit too).
pub const MAX_CROWD: u32 = 1_000_000;

/// Fewest vectors that still fit one crowd instance (5) beside the shader's own 5.
pub const MIN_UNIFORM_VECTORS: u32 = 10;

/// A whole number in `min..=max`. Negative and too-large numbers are "out of range", anything
/// else "not a whole number"; both name the range.
pub fn parse_whole(s: &str, min: u64, max: u64) -> Result<u64, String> {
    let allowed = format!("allowed: {min} to {max}");
    let t = s.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    let is_integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    match t.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!("`{t}` is out of range; {allowed}")),
        Err(_) if is_integer => Err(format!("`{t}` is out of range; {allowed}")),
        Err(_) => Err(format!("`{s}` is not a whole number; {allowed}")),
    }
}

pub fn parse_uniform_vectors(s: &str) -> Result<u32, String> {
    parse_whole(s, MIN_UNIFORM_VECTORS as u64, 65536)
        .map(|n| n as u32)
        .map_err(|e| format!("{e} (256 is the GL 3.3 minimum)"))
}

/// A crowd seed: any whole number 0 to `u64::MAX`.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    parse_whole(s, 0, u64::MAX).map_err(|_| {
        format!(
            "`{s}` is not a seed; seeds are whole numbers 0 to {}",
            u64::MAX
        )
    })
}

/// How many frames to run: at least 1.
pub fn parse_frames(s: &str) -> Result<u64, String> {
    match parse_whole(s, 1, u64::MAX) {
        Err(_) if s.trim() == "0" => Err("0 frames would show nothing; allowed: 1 or more".into()),
        r => r,
    }
}

/// The budgets `--frame-budget` accepts (`perf::adaptive` holds them).
pub const MIN_FRAME_BUDGET_MS: f32 = 4.0;
pub const MAX_FRAME_BUDGET_MS: f32 = 1000.0;

/// `--frame-budget`: milliseconds per frame the adaptive quality holds.
pub fn parse_frame_budget(s: &str) -> Result<f32, String> {
    const MIN: f32 = MIN_FRAME_BUDGET_MS;
    const MAX: f32 = MAX_FRAME_BUDGET_MS;
    match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (MIN..=MAX).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a frame time in milliseconds; allowed: {MIN} to {MAX} (33.3 is 30 fps)"
        )),
    }
}

/// `--slow-frame-ms`: a testing aid's pause per frame, 0 to 10000 ms.
pub fn parse_slow_frame_ms(s: &str) -> Result<u64, String> {
    parse_whole(s, 0, 10_000)
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
        match parse_whole(v, 64, 8192) {
            Ok(n) => Ok(n as u32),
            Err(e) if e.contains("out of range") => {
                Err(format!("`{s}`: {} is out of range; {allowed}", v.trim()))
            }
            Err(_) => Err(format!("`{s}`: `{v}` is not a whole number; {allowed}")),
        }
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
        assert_eq!(
            parse_size("-5x10").unwrap_err(),
            "`-5x10`: -5 is out of range; allowed: WIDTHxHEIGHT with each side 64 to 8192, e.g. 1280x720"
        );
    }

    #[test]
    fn whole_numbers_name_their_range_whatever_is_wrong() {
        assert_eq!(parse_whole("7", 1, 10), Ok(7));
        for bad in ["0", "11", "-1", "99999999999999999999999"] {
            assert_eq!(
                parse_whole(bad, 1, 10).unwrap_err(),
                format!("`{bad}` is out of range; allowed: 1 to 10")
            );
        }
        assert_eq!(
            parse_whole("2.5", 1, 10).unwrap_err(),
            "`2.5` is not a whole number; allowed: 1 to 10"
        );
        // Too large for 64 bits is a range problem, not "not a whole number".
        assert_eq!(
            parse_frames("99999999999999999999").unwrap_err(),
            "`99999999999999999999` is out of range; allowed: 1 to 18446744073709551615"
        );
        assert_eq!(
            parse_frames("0").unwrap_err(),
            "0 frames would show nothing; allowed: 1 or more"
        );
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        for bad in ["-1", "18446744073709551616", "x"] {
            assert_eq!(
                parse_seed(bad).unwrap_err(),
                format!("`{bad}` is not a seed; seeds are whole numbers 0 to 18446744073709551615")
            );
        }
        assert_eq!(
            parse_uniform_vectors("99999999999").unwrap_err(),
            "`99999999999` is out of range; allowed: 10 to 65536 (256 is the GL 3.3 minimum)"
        );
    }
}
