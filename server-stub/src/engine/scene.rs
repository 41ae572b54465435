//! Turns a prompt into a scene: a palette from colour and mood words, a motion from verbs, the
//! prompt itself as the caption, and a seed, all deterministic for the same prompt.

/// An RGB colour.
pub type Rgb = [u8; 3];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// Shapes drift sideways (the default).
    Drift,
    /// Shapes fall from the top (rain, snow, fall ...).
    Fall,
    /// Shapes rise (fly, rise, float ...).
    Rise,
    /// Shapes orbit the centre (spin, dance, swirl ...).
    Orbit,
    /// Shapes bounce (jump, bounce, run ...).
    Bounce,
    /// Shapes grow and shrink (pulse, breathe, explode ...).
    Pulse,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Sky (top), ground (bottom) and accent (shapes).
    pub top: Rgb,
    pub bottom: Rgb,
    pub accent: Rgb,
    pub motion: Motion,
    pub seed: u64,
    pub caption: String,
}

const COLOURS: &[(&str, Rgb)] = &[
    ("red", [214, 40, 40]),
    ("crimson", [170, 20, 50]),
    ("orange", [247, 127, 0]),
    ("amber", [255, 191, 0]),
    ("yellow", [252, 211, 77]),
    ("gold", [212, 175, 55]),
    ("green", [56, 176, 0]),
    ("emerald", [16, 185, 129]),
    ("teal", [20, 150, 150]),
    ("cyan", [6, 182, 212]),
    ("blue", [37, 99, 235]),
    ("navy", [20, 33, 90]),
    ("purple", [126, 34, 206]),
    ("violet", [139, 92, 246]),
    ("pink", [236, 72, 153]),
    ("magenta", [217, 70, 239]),
    ("white", [245, 245, 245]),
    ("silver", [192, 192, 200]),
    ("grey", [120, 120, 130]),
    ("gray", [120, 120, 130]),
    ("black", [15, 15, 20]),
    ("brown", [120, 72, 40]),
];

/// Mood words set the whole palette: (word, top, bottom, accent).
const MOODS: &[(&str, Rgb, Rgb, Rgb)] = &[
    ("sunset", [255, 120, 60], [90, 30, 90], [255, 210, 120]),
    ("sunrise", [255, 170, 110], [120, 160, 220], [255, 240, 180]),
    ("ocean", [30, 110, 200], [5, 40, 90], [180, 230, 255]),
    ("sea", [30, 110, 200], [5, 40, 90], [180, 230, 255]),
    ("forest", [40, 110, 60], [15, 45, 25], [170, 220, 120]),
    ("night", [10, 15, 45], [2, 2, 12], [230, 230, 255]),
    ("space", [8, 8, 30], [0, 0, 0], [255, 255, 255]),
    ("fire", [255, 90, 20], [80, 10, 0], [255, 220, 80]),
    ("snow", [220, 230, 245], [170, 190, 215], [255, 255, 255]),
    ("desert", [240, 190, 120], [190, 120, 60], [255, 235, 190]),
    ("neon", [20, 0, 40], [60, 0, 90], [0, 255, 200]),
    ("calm", [160, 200, 230], [220, 235, 245], [255, 255, 255]),
    ("dark", [25, 25, 35], [5, 5, 10], [140, 140, 170]),
    ("storm", [70, 80, 100], [30, 35, 45], [220, 230, 255]),
];

const MOTIONS: &[(&[&str], Motion)] = &[
    (
        &[
            "rain", "raining", "fall", "falls", "falling", "snowing", "drop", "drops", "dropping",
            "sink",
        ],
        Motion::Fall,
    ),
    (
        &[
            "fly", "flies", "flying", "rise", "rises", "rising", "float", "floats", "floating",
            "launch", "soar", "soaring", "bubbles",
        ],
        Motion::Rise,
    ),
    (
        &[
            "spin", "spins", "spinning", "orbit", "orbits", "orbiting", "dance", "dances",
            "dancing", "swirl", "swirling", "rotate", "rotating", "whirl",
        ],
        Motion::Orbit,
    ),
    (
        &[
            "jump", "jumps", "jumping", "bounce", "bounces", "bouncing", "run", "runs", "running",
            "hop", "hops",
        ],
        Motion::Bounce,
    ),
    (
        &[
            "pulse",
            "pulses",
            "pulsing",
            "breathe",
            "breathing",
            "explode",
            "explodes",
            "exploding",
            "glow",
            "glowing",
            "beat",
        ],
        Motion::Pulse,
    ),
];

/// FNV-1a: a stable hash, so the same prompt always gives the same video.
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hue_colour(seed: u64, shift: u64) -> Rgb {
    let h = ((seed >> shift) % 360) as f32 / 60.0;
    let x = (1.0 - (h % 2.0 - 1.0).abs()) * 200.0;
    let (r, g, b) = match h as u32 {
        0 => (200.0, x, 0.0),
        1 => (x, 200.0, 0.0),
        2 => (0.0, 200.0, x),
        3 => (0.0, x, 200.0),
        4 => (x, 0.0, 200.0),
        _ => (200.0, 0.0, x),
    };
    [r as u8 + 30, g as u8 + 30, b as u8 + 30]
}

fn darker(c: Rgb) -> Rgb {
    c.map(|v| v / 3)
}

impl Scene {
    /// The scene of `source` re-made with `prompt`: the source's motion and the place of
    /// every shape, in the new prompt's colours and caption.
    pub fn remix(source: &str, prompt: &str, take: u32) -> Scene {
        let layout = Scene::from_prompt(source);
        Scene {
            motion: layout.motion,
            seed: layout.seed,
            ..Scene::seeded(prompt, take)
        }
    }

    pub fn from_prompt(prompt: &str) -> Scene {
        Scene::seeded(prompt, 0)
    }

    /// The scene of `prompt` in take `seed`: seed 0 is the prompt's own scene; any other seed
    /// moves every shape and, where the prompt names no mood, shifts the colours.
    pub fn seeded(prompt: &str, take: u32) -> Scene {
        let seed = fnv1a(prompt) ^ u64::from(take).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let words: Vec<String> = prompt
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let colours: Vec<Rgb> = words
            .iter()
            .filter_map(|w| COLOURS.iter().find(|(name, _)| name == w).map(|(_, c)| *c))
            .collect();
        let mood = words
            .iter()
            .find_map(|w| MOODS.iter().find(|(name, ..)| name == w));
        let (mut top, mut bottom, mut accent) = match mood {
            Some(&(_, t, b, a)) => (t, b, a),
            None => {
                let base = hue_colour(seed, 0);
                (base, darker(base), hue_colour(seed, 17))
            }
        };
        match colours.as_slice() {
            [] => {}
            [one] => accent = *one,
            [first, second, ..] => {
                top = *first;
                bottom = darker(*first);
                accent = *second;
            }
        }
        let motion = words
            .iter()
            .find_map(|w| {
                MOTIONS
                    .iter()
                    .find(|(verbs, _)| verbs.contains(&w.as_str()))
                    .map(|(_, m)| *m)
            })
            .unwrap_or(Motion::Drift);
        Scene {
            top,
            bottom,
            accent,
            motion,
            seed,
            caption: prompt.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_choose_palette_and_motion() {
        let s = Scene::from_prompt("A red balloon flying over a blue sea");
        assert_eq!(s.top, [214, 40, 40]);
        assert_eq!(s.accent, [37, 99, 235]);
        assert_eq!(s.motion, Motion::Rise);
        let s = Scene::from_prompt("rain at night");
        assert_eq!((s.top, s.motion), ([10, 15, 45], Motion::Fall));
        assert_eq!(Scene::from_prompt("dancers").motion, Motion::Drift);
        assert_eq!(Scene::from_prompt("two cats dancing").motion, Motion::Orbit);
    }

    #[test]
    fn the_same_prompt_gives_the_same_scene_and_others_differ() {
        assert_eq!(
            Scene::from_prompt("a quiet lake"),
            Scene::from_prompt("a quiet lake")
        );
        assert_ne!(
            Scene::from_prompt("a quiet lake").top,
            Scene::from_prompt("a loud city").top
        );
    }

    #[test]
    fn a_remix_keeps_the_layout_and_takes_the_new_words() {
        let remix = Scene::remix("a red ball bouncing", "a blue sea at night", 0);
        let source = Scene::from_prompt("a red ball bouncing");
        assert_eq!((remix.motion, remix.seed), (source.motion, source.seed));
        assert_eq!(remix.caption, "a blue sea at night");
        assert_eq!(remix.top, Scene::from_prompt("a blue sea at night").top);
    }

    #[test]
    fn the_caption_is_the_prompt_on_one_line() {
        assert_eq!(Scene::from_prompt("  a\n cat  ").caption, "a cat");
    }
}
