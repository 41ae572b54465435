//! Which shots go in one call: a model's limits checked, and a storyboard's neighbouring shots
//! run together as far as they allow.

use crate::engine::VideoSpec;
use crate::jobs::record::ShotPart;
use crate::jobs::NewJob;
use crate::providers::{ShotLimits, ShotPrompt};

/// Whether `parts` can be made in one call of `model`, which makes `limits` (none: it makes
/// one shot a call): the reason when they cannot.
pub fn check(model: &str, limits: Option<ShotLimits>, parts: &[ShotPart]) -> Result<(), String> {
    let Some(limits) = limits else {
        return Err(format!(
            "The model {model} makes one shot a call, not several"
        ));
    };
    let seconds: u32 = parts.iter().map(|p| p.asked.seconds).sum();
    let (least, most) = limits.seconds;
    if parts.len() < 2 || parts.len() > limits.most_shots {
        return Err(format!(
            "The model {model} makes 2 to {} shots in one call, not {}",
            limits.most_shots,
            parts.len()
        ));
    }
    if !(least..=most).contains(&seconds) || parts.iter().any(|p| p.asked.seconds == 0) {
        return Err(format!(
            "The model {model} makes {least} to {most} s of shots in one call, each at least \
             1 s, not {seconds} s"
        ));
    }
    if let Some(long) = parts
        .iter()
        .find(|p| p.asked.prompt.chars().count() > limits.prompt_chars)
    {
        return Err(format!(
            "The model {model} takes a shot's prompt of at most {} characters, and shot {} has {}",
            limits.prompt_chars,
            long.link.shot,
            long.asked.prompt.chars().count()
        ));
    }
    Ok(())
}

/// The jobs of a storyboard's shots (each with its place in the sequence) with runs of
/// neighbouring shots that `limits` allow in one call made one job each: shots with pictures
/// of their own, and runs too short for the model, stay jobs of their own.
pub fn grouped(news: Vec<(usize, NewJob)>, limits: ShotLimits) -> Vec<NewJob> {
    let mut jobs = Vec::new();
    let mut run: Vec<(usize, NewJob)> = Vec::new();
    let close = |run: &mut Vec<(usize, NewJob)>, jobs: &mut Vec<NewJob>| {
        let seconds: u32 = run.iter().map(|(_, n)| n.spec.seconds).sum();
        if run.len() < 2 || seconds < limits.seconds.0 {
            jobs.extend(run.drain(..).map(|(_, n)| n));
            return;
        }
        let parts: Vec<(usize, NewJob)> = std::mem::take(run);
        let first = &parts[0].1;
        let mut merged = NewJob {
            project_id: first.project_id.clone(),
            model: first.model.clone(),
            spec: VideoSpec {
                seconds,
                ..first.spec
            },
            fit: first.fit,
            ..NewJob::default()
        };
        merged.prompt = parts
            .iter()
            .map(|(_, n)| n.prompt.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        merged.shots = parts
            .into_iter()
            .filter_map(|(_, n)| {
                Some(ShotPart {
                    link: n.shot?,
                    asked: ShotPrompt {
                        prompt: n.prompt,
                        seconds: n.spec.seconds,
                    },
                })
            })
            .collect();
        jobs.push(merged);
    };
    for (at, new) in news {
        let seconds: u32 = run.iter().map(|(_, n)| n.spec.seconds).sum();
        let joins = run.last().is_some_and(|(last, _)| *last + 1 == at)
            && run.len() < limits.most_shots
            && seconds + new.spec.seconds <= limits.seconds.1;
        let alone = !new.inputs.is_empty()
            || new.shot.is_none()
            || new.prompt.chars().count() > limits.prompt_chars;
        if alone || !joins {
            close(&mut run, &mut jobs);
        }
        if alone {
            jobs.push(new);
        } else {
            run.push((at, new));
        }
    }
    close(&mut run, &mut jobs);
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequences::ShotLink;

    fn part(seconds: u32, prompt: &str) -> ShotPart {
        ShotPart {
            link: ShotLink {
                sequence: "seq".into(),
                shot: "shot".into(),
            },
            asked: ShotPrompt {
                prompt: prompt.into(),
                seconds,
            },
        }
    }

    fn new(shot: &str, seconds: u32, pictures: bool) -> NewJob {
        NewJob {
            prompt: format!("{shot} prompt"),
            spec: VideoSpec {
                seconds,
                ..VideoSpec::default()
            },
            inputs: if pictures {
                vec![crate::providers::inputs::Input::Image(
                    crate::providers::inputs::ImageInput {
                        reference: "r".into(),
                        role: crate::providers::inputs::ImageRole::FirstFrame,
                        cast: None,
                    },
                )]
            } else {
                Vec::new()
            },
            shot: Some(ShotLink {
                sequence: "seq".into(),
                shot: shot.into(),
            }),
            ..NewJob::default()
        }
    }

    #[test]
    fn neighbouring_shots_go_in_one_call_as_far_as_the_model_takes_them() {
        let limits = ShotLimits {
            most_shots: 3,
            seconds: (3, 15),
            prompt_chars: 512,
        };
        let news = vec![
            (0, new("a", 4, false)),
            (1, new("b", 4, false)),
            (2, new("c", 4, false)),
            (3, new("d", 4, false)),
            (5, new("e", 2, false)),
            (6, new("f", 2, true)),
            (7, new("g", 10, false)),
            (8, new("h", 6, false)),
        ];
        let jobs = grouped(news, limits);
        let made: Vec<Vec<String>> = jobs
            .iter()
            .map(|j| match j.shots.is_empty() {
                true => vec![j.shot.clone().unwrap().shot],
                false => j.shots.iter().map(|p| p.link.shot.clone()).collect(),
            })
            .collect();
        let expected: Vec<Vec<&str>> = vec![
            vec!["a", "b", "c"],
            vec!["d"],
            vec!["e"],
            vec!["f"],
            vec!["g"],
            vec!["h"],
        ];
        assert_eq!(
            made, expected,
            "three at most; d stands apart from e; f has pictures; g and h are 16 s"
        );
        assert_eq!(jobs[0].spec.seconds, 12);
        assert_eq!(jobs[0].prompt, "a prompt\nb prompt\nc prompt");
        assert!(jobs[0].shot.is_none());
    }

    #[test]
    fn shots_in_one_call_keep_to_the_models_limits() {
        let limits = Some(ShotLimits {
            most_shots: 6,
            seconds: (3, 15),
            prompt_chars: 512,
        });
        assert_eq!(check("m", limits, &[part(2, "a"), part(3, "b")]), Ok(()));
        assert!(check("m", None, &[part(2, "a"), part(3, "b")]).is_err());
        assert!(check("m", limits, &[part(5, "a")]).is_err(), "one shot");
        assert!(check("m", limits, &vec![part(1, "a"); 7]).is_err(), "seven");
        assert!(
            check("m", limits, &[part(10, "a"), part(6, "b")]).is_err(),
            "16 s"
        );
        assert!(
            check("m", limits, &[part(1, "a"), part(1, "b")]).is_err(),
            "2 s"
        );
        assert!(
            check("m", limits, &[part(3, "a"), part(0, "b")]).is_err(),
            "0 s"
        );
        let long = "x".repeat(513);
        assert!(check("m", limits, &[part(3, "a"), part(3, &long)]).is_err());
    }
}
