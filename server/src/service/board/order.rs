//! Board order: fractional index keys and where a moved item goes.
//!
//! Columns of a client, and tasks of a column, are ordered by `(position, id)` compared byte-wise.
//! Every change to a client's board runs in a [`crate::service::Change`] on the board topic, whose
//! sequence row lock serialises the client's board writes: a new key is always computed from the
//! committed neighbours, so two moves never produce the same key and a move rewrites one row.

/// Fractional index keys: a Rust port of the `fractional-indexing` algorithm (base-62 digits,
/// `A`-`Z`/`a`-`z` integer heads) so that the web app, which uses the npm package of the same
/// name, produces and accepts exactly the same keys.
pub mod keys {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const ZERO: u8 = b'0';
    const LAST: u8 = b'z';
    const SMALLEST_INTEGER: &str = "A00000000000000000000000000";

    /// A key that cannot be used, or bounds given in the wrong order.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[error("invalid order key: {0}")]
    pub struct KeyError(pub String);

    fn digit(c: u8) -> Option<usize> {
        match c {
            b'0'..=b'9' => Some((c - b'0') as usize),
            b'A'..=b'Z' => Some((c - b'A') as usize + 10),
            b'a'..=b'z' => Some((c - b'a') as usize + 36),
            _ => None,
        }
    }

    fn integer_length(head: u8) -> Result<usize, KeyError> {
        match head {
            b'a'..=b'z' => Ok((head - b'a') as usize + 2),
            b'A'..=b'Z' => Ok((b'Z' - head) as usize + 2),
            _ => Err(KeyError(format!(
                "invalid order key head: {}",
                head as char
            ))),
        }
    }

    fn integer_part(key: &str) -> Result<&str, KeyError> {
        let first = *key
            .as_bytes()
            .first()
            .ok_or_else(|| KeyError(String::new()))?;
        let n = integer_length(first)?;
        if n > key.len() {
            return Err(KeyError(key.to_string()));
        }
        Ok(&key[..n])
    }

    /// Checks that `key` is a well-formed key.
    pub fn validate(key: &str) -> Result<(), KeyError> {
        if !key.bytes().all(|c| digit(c).is_some()) || key == SMALLEST_INTEGER {
            return Err(KeyError(key.to_string()));
        }
        let i = integer_part(key)?;
        if key[i.len()..].ends_with('0') {
            return Err(KeyError(key.to_string()));
        }
        Ok(())
    }

    fn midpoint(a: &str, b: Option<&str>) -> Result<String, KeyError> {
        if let Some(b) = b
            && a >= b
        {
            return Err(KeyError(format!("{a} >= {b}")));
        }
        if a.ends_with('0') || b.is_some_and(|b| b.ends_with('0')) {
            return Err(KeyError("trailing zero".into()));
        }
        let (ab, bb) = (a.as_bytes(), b.map(str::as_bytes));
        if let Some(bb) = bb {
            let mut n = 0;
            while n < bb.len() && ab.get(n).copied().unwrap_or(ZERO) == bb[n] {
                n += 1;
            }
            if n > 0 {
                let b = b.unwrap_or_default();
                let rest = midpoint(a.get(n..).unwrap_or(""), Some(&b[n..]))?;
                return Ok(format!("{}{}", &b[..n], rest));
            }
        }
        let digit_a = match ab.first() {
            Some(&c) => digit(c).ok_or_else(|| KeyError(a.to_string()))?,
            None => 0,
        };
        let digit_b = match bb {
            Some(bb) => digit(*bb.first().ok_or_else(|| KeyError(String::new()))?)
                .ok_or_else(|| KeyError(String::new()))?,
            None => DIGITS.len(),
        };
        if digit_b - digit_a > 1 {
            // Math.round(0.5 * (a + b)) rounds halves up, as integer (a + b + 1) / 2 does.
            let mid = (digit_a + digit_b).div_ceil(2);
            Ok((DIGITS[mid] as char).to_string())
        } else if let Some(bb) = bb.filter(|bb| bb.len() > 1) {
            Ok((bb[0] as char).to_string())
        } else {
            let rest = midpoint(a.get(1..).unwrap_or(""), None)?;
            Ok(format!("{}{}", DIGITS[digit_a] as char, rest))
        }
    }

    fn validate_integer(x: &str) -> Result<(), KeyError> {
        if x.len() != integer_length(x.as_bytes()[0])? {
            return Err(KeyError(format!("invalid integer part of order key: {x}")));
        }
        Ok(())
    }

    fn increment_integer(x: &str) -> Result<Option<String>, KeyError> {
        validate_integer(x)?;
        let b = x.as_bytes();
        let head = b[0];
        let mut trailing = String::new();
        for i in (1..b.len()).rev() {
            let d = digit(b[i]).ok_or_else(|| KeyError(x.to_string()))? + 1;
            if d == DIGITS.len() {
                trailing.insert(0, ZERO as char);
            } else {
                return Ok(Some(format!(
                    "{}{}{}{}",
                    head as char,
                    &x[1..i],
                    DIGITS[d] as char,
                    trailing
                )));
            }
        }
        if head == b'z' {
            return Ok(None);
        }
        let h = if head == b'Z' { b'a' } else { head + 1 };
        let delta = integer_length(h)? as isize - integer_length(head)? as isize;
        let digits = match delta {
            d if d > 0 => format!("{trailing}0"),
            d if d < 0 => trailing[1..].to_string(),
            _ => trailing,
        };
        Ok(Some(format!("{}{}", h as char, digits)))
    }

    fn decrement_integer(x: &str) -> Result<Option<String>, KeyError> {
        validate_integer(x)?;
        let b = x.as_bytes();
        let head = b[0];
        let mut trailing = String::new();
        for i in (1..b.len()).rev() {
            let d = digit(b[i]).ok_or_else(|| KeyError(x.to_string()))?;
            if d == 0 {
                trailing.insert(0, LAST as char);
            } else {
                return Ok(Some(format!(
                    "{}{}{}{}",
                    head as char,
                    &x[1..i],
                    DIGITS[d - 1] as char,
                    trailing
                )));
            }
        }
        if head == b'A' {
            return Ok(None);
        }
        let h = if head == b'a' { b'Z' } else { head - 1 };
        let delta = integer_length(h)? as isize - integer_length(head)? as isize;
        let digits = match delta {
            d if d > 0 => format!("{trailing}z"),
            d if d < 0 => trailing[1..].to_string(),
            _ => trailing,
        };
        Ok(Some(format!("{}{}", h as char, digits)))
    }

    /// A key that sorts strictly between `a` and `b` (`None` meaning the start or the end).
    pub fn between(a: Option<&str>, b: Option<&str>) -> Result<String, KeyError> {
        if let Some(a) = a {
            validate(a)?;
        }
        if let Some(b) = b {
            validate(b)?;
        }
        let (a, b) = match (a, b) {
            (Some(x), Some(y)) if x > y => (Some(y), Some(x)),
            (Some(x), Some(y)) if x == y => return Err(KeyError(format!("{x} >= {y}"))),
            other => other,
        };
        match (a, b) {
            (None, None) => Ok("a0".to_string()),
            (None, Some(b)) => {
                let ib = integer_part(b)?;
                let fb = &b[ib.len()..];
                if ib == SMALLEST_INTEGER {
                    return Ok(format!("{ib}{}", midpoint("", Some(fb))?));
                }
                if ib < b {
                    return Ok(ib.to_string());
                }
                decrement_integer(ib)?.ok_or_else(|| KeyError("cannot decrement any more".into()))
            }
            (Some(a), None) => {
                let ia = integer_part(a)?;
                let fa = &a[ia.len()..];
                match increment_integer(ia)? {
                    Some(i) => Ok(i),
                    None => Ok(format!("{ia}{}", midpoint(fa, None)?)),
                }
            }
            (Some(a), Some(b)) => {
                let ia = integer_part(a)?;
                let fa = &a[ia.len()..];
                let ib = integer_part(b)?;
                let fb = &b[ib.len()..];
                if ia == ib {
                    return Ok(format!("{ia}{}", midpoint(fa, Some(fb))?));
                }
                let i = increment_integer(ia)?
                    .ok_or_else(|| KeyError("cannot increment any more".into()))?;
                if i.as_str() < b {
                    Ok(i)
                } else {
                    Ok(format!("{ia}{}", midpoint(fa, None)?))
                }
            }
        }
    }

    /// `n` increasing keys from the start (`a0`, `a1`, ...), used to rebalance a list.
    pub fn sequence(n: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(n);
        for _ in 0..n {
            let next =
                between(out.last().map(String::as_str), None).unwrap_or_else(|_| "a0".into());
            out.push(next);
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Produced by `generateKeyBetween` of the npm package `fractional-indexing` 4.0.0: fixed
        /// cases, then a seeded random walk of insertions.
        const VECTORS: &str = r#"[[null,null,"a0"],["a0",null,"a1"],[null,"a0","Zz"],["a0","a1","a0V"],["a1","a2","a1V"],["a0V","a1","a0l"],["Zz","a0","ZzV"],[null,"Zz","Zy"],["a0","a0V","a0G"],["a09","a1","a0a"],["a1","a1V","a1G"],["az",null,"b00"],["Zy","Zz","ZyV"],["zzzzzzzzzzzzzzzzzzzzzzzzzzy",null,"zzzzzzzzzzzzzzzzzzzzzzzzzzz"],["a0","a01","a00V"],["b125","b13","b12Y"],["a0",null,"a1"],[null,null,"a0"],[null,"a0","Zz"],["Zz","a0","ZzV"],["a0",null,"a1"],["a0","a1","a0V"],["a0","a0V","a0G"],["a1",null,"a2"],["a2",null,"a3"],[null,"Zz","Zy"],["a3",null,"a4"],["Zz","ZzV","ZzG"],["Zz","ZzG","Zz8"],["a4",null,"a5"],[null,"Zy","Zx"],["ZzG","ZzV","ZzO"],[null,"Zx","Zw"],["Zw","Zx","ZwV"],["a0V","a1","a0l"],["a4","a5","a4V"],["a3","a4","a3V"],["a2","a3","a2V"],["Zw","ZwV","ZwG"],["a0l","a1","a0t"],["a0","a0G","a08"],["Zy","Zz","ZyV"],["a4","a4V","a4G"],["Zw","ZwG","Zw8"],["a3","a3V","a3G"],["ZwV","Zx","Zwl"],[null,"Zw","Zv"],["a2","a2V","a2G"],["a2G","a2V","a2O"],["a3V","a4","a3l"],["a3G","a3V","a3O"],["a3V","a3l","a3d"],["a3","a3G","a38"],["Zv","Zw","ZvV"],["Zz8","ZzG","ZzC"],["ZwG","ZwV","ZwO"],["a2G","a2O","a2K"],["ZzG","ZzO","ZzK"],["Zz","Zz8","Zz4"],["a38","a3G","a3C"],["Zz4","Zz8","Zz6"],["a3d","a3l","a3h"],["a0l","a0t","a0p"],["Zx","Zy","ZxV"],["a0","a08","a04"],["a0p","a0t","a0r"],["ZzO","ZzV","ZzS"],["Zz6","Zz8","Zz7"],["a3O","a3V","a3S"],["a0r","a0t","a0s"],["ZzG","ZzK","ZzI"],["a2O","a2V","a2S"],["a0r","a0s","a0rV"],["ZzO","ZzS","ZzQ"],["a0r","a0rV","a0rG"],["Zz4","Zz6","Zz5"],["ZwG","ZwO","ZwK"],["a0rG","a0rV","a0rO"],["a0V","a0l","a0d"],["a0","a04","a02"],["Zz7","Zz8","Zz7V"],["a0","a02","a01"],["ZwG","ZwK","ZwI"],["a2S","a2V","a2U"],["Zy","ZyV","ZyG"],["ZwO","ZwV","ZwS"],["a3G","a3O","a3K"],["a0r","a0rG","a0r8"],["a0rG","a0rO","a0rK"],["a3l","a4","a3t"],["Zz4","Zz5","Zz4V"],["a04","a08","a06"],["ZzO","ZzQ","ZzP"],["a0rK","a0rO","a0rM"],["a0t","a1","a0x"],["Zz4","Zz4V","Zz4G"],["ZyG","ZyV","ZyO"],["a0rK","a0rM","a0rL"],[null,"Zv","Zu"],["Zz5","Zz6","Zz5V"],["a2S","a2U","a2T"],["a2S","a2T","a2SV"],["ZzV","a0","Zzl"],["ZzI","ZzK","ZzJ"],["a06","a08","a07"],["Zz4V","Zz5","Zz4l"],["Zz6","Zz7","Zz6V"],["a38","a3C","a3A"],["Zz6","Zz6V","Zz6G"],["a0r","a0r8","a0r4"],["Zw8","ZwG","ZwC"],["a3K","a3O","a3M"],["a0s","a0t","a0sV"],["Zzl","a0","Zzt"],["ZyG","ZyO","ZyK"],["a3","a38","a34"],["Zz6","Zz6G","Zz68"],["Zz4","Zz4G","Zz48"],["Zzl","Zzt","Zzp"],["a2S","a2SV","a2SG"]]"#;

        #[test]
        fn matches_the_npm_package() {
            let v: Vec<(Option<String>, Option<String>, String)> =
                serde_json::from_str(VECTORS).unwrap();
            for (a, b, want) in v {
                assert_eq!(
                    between(a.as_deref(), b.as_deref()).unwrap(),
                    want,
                    "between({a:?}, {b:?})"
                );
            }
        }

        #[test]
        fn random_insertions_stay_sorted_and_distinct() {
            let mut keys: Vec<String> = Vec::new();
            let mut seed: u64 = 42;
            for _ in 0..2000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pos = (seed >> 33) as usize % (keys.len() + 1);
                let a = pos.checked_sub(1).map(|i| keys[i].as_str());
                let b = keys.get(pos).map(String::as_str);
                let k = between(a, b).unwrap();
                if let Some(a) = a {
                    assert!(a < k.as_str());
                }
                if let Some(b) = b {
                    assert!(k.as_str() < b);
                }
                keys.insert(pos, k);
            }
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted, keys);
        }

        #[test]
        fn rejects_bad_keys_and_equal_bounds() {
            assert!(between(Some("a0"), Some("a0")).is_err());
            assert!(between(Some("a00"), None).is_err());
            assert!(between(Some("!"), None).is_err());
            assert!(validate("").is_err());
            assert_eq!(sequence(3), vec!["a0", "a1", "a2"]);
        }
    }
}

/// Where to put a moved item: after the item `after_id` and/or before the item `before_id`
/// (the neighbours the mover saw). Both absent means the end.
#[derive(Debug, Clone, Default)]
pub struct Placement<'a> {
    /// The item that should precede the moved one.
    pub after_id: Option<&'a str>,
    /// The item that should follow the moved one.
    pub before_id: Option<&'a str>,
}

/// Position items `(id, key)` sorted in list order.
pub type Keyed<'a> = Vec<(&'a str, &'a str)>;

/// Computes the key for an item placed in `list` (sorted, without the moved item) as asked by
/// `place`. The neighbour the mover named is honoured as it is now: `after_id` wins when it is still
/// in the list (the item goes right after it), else `before_id` (right before it), else the end.
/// Returns `None` when the list's keys are not strictly increasing around the spot (only possible
/// after a manual edit), in which case the caller rebalances the list.
pub fn place_key(list: &Keyed<'_>, place: &Placement<'_>) -> Option<String> {
    let idx = if let Some(i) = place
        .after_id
        .and_then(|a| list.iter().position(|(id, _)| *id == a))
    {
        i + 1
    } else if let Some(i) = place
        .before_id
        .and_then(|b| list.iter().position(|(id, _)| *id == b))
    {
        i
    } else {
        // The named neighbours have left the list (moved concurrently): the end.
        list.len()
    };
    let a = idx.checked_sub(1).map(|i| list[i].1);
    let b = list.get(idx).map(|x| x.1);
    keys::between(a, b).ok()
}

/// Rewrites all keys of a list (rare: only when existing keys are unusable), returning the new keys
/// in list order with the moved item inserted at the placement.
pub fn rebalanced(list: &Keyed<'_>, place: &Placement<'_>, moved: &str) -> Vec<(String, String)> {
    let mut ids: Vec<&str> = list.iter().map(|(id, _)| *id).collect();
    let idx = place
        .after_id
        .and_then(|a| ids.iter().position(|id| *id == a).map(|i| i + 1))
        .or_else(|| {
            place
                .before_id
                .and_then(|b| ids.iter().position(|id| *id == b))
        })
        .unwrap_or(ids.len());
    ids.insert(idx, moved);
    ids.iter()
        .zip(keys::sequence(ids.len()))
        .map(|(id, k)| (id.to_string(), k))
        .collect()
}

/// The key of an item added at the end of a list whose last key is `last`.
pub fn key_after(last: Option<&str>) -> String {
    keys::between(last, None).unwrap_or_else(|_| "a0".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_honours_the_named_neighbour() {
        let list: Keyed<'_> = vec![("x", "a0"), ("y", "a1"), ("z", "a2")];
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: Some("y"),
            },
        )
        .unwrap();
        assert!("a0" < k.as_str() && k.as_str() < "a1");
        // After "x" even when the mover thought "z" came next: "x" wins.
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: Some("z"),
            },
        )
        .unwrap();
        assert!("a0" < k.as_str() && k.as_str() < "a1");
        // Named predecessor gone: before "z".
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("gone"),
                before_id: Some("z"),
            },
        )
        .unwrap();
        assert!("a1" < k.as_str() && k.as_str() < "a2");
        // Nothing named: the end.
        let k = place_key(&list, &Placement::default()).unwrap();
        assert!(k.as_str() > "a2");
        // Start.
        let k = place_key(
            &list,
            &Placement {
                after_id: None,
                before_id: Some("x"),
            },
        )
        .unwrap();
        assert!(k.as_str() < "a0");
    }

    #[test]
    fn equal_keys_force_a_rebalance() {
        let list: Keyed<'_> = vec![("x", "a0"), ("y", "a0")];
        assert!(
            place_key(
                &list,
                &Placement {
                    after_id: Some("x"),
                    before_id: None
                }
            )
            .is_none()
        );
        let r = rebalanced(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: None,
            },
            "m",
        );
        let ids: Vec<&str> = r.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, ["x", "m", "y"]);
    }
}
