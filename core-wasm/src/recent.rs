//! The recent-projects rules: most recent first, no duplicates, at most five (spec 4, 9).

use crate::constants::RECENT_LIMIT;

/// Moves `project_id` to the front of `list`, removing duplicates and capping the length.
pub fn push(list: &[String], project_id: &str) -> Vec<String> {
    std::iter::once(project_id.to_owned())
        .chain(list.iter().filter(|p| p.as_str() != project_id).cloned())
        .fold(Vec::new(), |mut out, p| {
            if !out.contains(&p) {
                out.push(p);
            }
            out
        })
        .into_iter()
        .take(RECENT_LIMIT)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn moves_to_front_and_dedupes() {
        assert_eq!(push(&list(&["a", "b", "c"]), "b"), list(&["b", "a", "c"]));
        assert_eq!(push(&list(&["a", "a", "b"]), "c"), list(&["c", "a", "b"]));
    }

    #[test]
    fn caps_at_five() {
        let full = list(&["a", "b", "c", "d", "e"]);
        assert_eq!(push(&full, "f"), list(&["f", "a", "b", "c", "d"]));
        assert_eq!(push(&full, "e"), list(&["e", "a", "b", "c", "d"]));
    }

    #[test]
    fn starts_an_empty_list() {
        assert_eq!(push(&[], "x"), list(&["x"]));
    }
}
