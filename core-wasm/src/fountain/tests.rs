use super::*;

fn dialogue(character: &str, lines: &[&str]) -> Element {
    Element::Dialogue {
        character: character.into(),
        lines: lines.iter().map(|l| l.to_string()).collect(),
    }
}

#[test]
fn a_title_page_names_the_script_and_is_not_read_as_action() {
    let script = read(
        "Title:\n    _**BRICK & STEEL**_\n    FULL RETIRED\nCredit: Written by\nAuthor: Stu\n\nINT. FLAT - DAY\n\nShe waits.",
    );
    assert_eq!(script.title.as_deref(), Some("BRICK & STEEL FULL RETIRED"));
    assert_eq!(
        script.elements,
        [
            Element::Heading("INT. FLAT - DAY".into()),
            Element::Action("She waits.".into())
        ]
    );
    assert_eq!(
        read("Title: One line\n\nAction.").title.as_deref(),
        Some("One line")
    );
    assert_eq!(read("No title page.\n\nAction.").title, None);
}

#[test]
fn headings_of_every_kind_and_forced_ones_start_scenes() {
    let text = "INT. HOUSE - DAY\n\nEXT. ROAD\n\nEST. CITY\n\nINT./EXT. CAR\n\nI/E TRAIN\n\nint. kitchen - night #12A#\n\n.FLASHBACK\n\nINTO the night she goes.\n\n...and so on.";
    let script = read(text);
    let headings: Vec<&str> = script.headings().collect();
    assert_eq!(
        headings,
        [
            "INT. HOUSE - DAY",
            "EXT. ROAD",
            "EST. CITY",
            "INT./EXT. CAR",
            "I/E TRAIN",
            "int. kitchen - night",
            "FLASHBACK"
        ]
    );
    assert_eq!(
        &script.elements[7..],
        [
            Element::Action("INTO the night she goes.".into()),
            Element::Action("...and so on.".into())
        ]
    );
}

#[test]
fn dialogue_drops_extensions_parentheticals_and_dual_marks() {
    let script = read(
        "MARA (V.O.)\n(quietly)\nWhere were you?\nI waited.\n\nLEO ^\nOut.\n\n@McCLANE\nYippee.\n\nDR. O'BRIEN (CONT'D)\nSit.",
    );
    assert_eq!(
        script.elements,
        [
            dialogue("MARA", &["Where were you?", "I waited."]),
            dialogue("LEO", &["Out."]),
            dialogue("McCLANE", &["Yippee."]),
            dialogue("DR. O'BRIEN", &["Sit."]),
        ]
    );
}

#[test]
fn a_line_in_capitals_alone_is_action_and_to_lines_are_transitions() {
    let script =
        read("BANG!\n\nCUT TO:\n\n> FADE OUT.\n\n>THE END<\n\n!SHOUTED ACTION\nstill action");
    assert_eq!(
        script.elements,
        [
            Element::Action("BANG!".into()),
            Element::Transition("CUT TO:".into()),
            Element::Transition("FADE OUT.".into()),
            Element::Centered("THE END".into()),
            Element::Action("SHOUTED ACTION\nstill action".into()),
        ]
    );
}

#[test]
fn notes_boneyard_sections_synopses_lyrics_and_page_breaks_stay_out_of_action() {
    let script = read(
        "# Act One\n\n= She finds the key.\n\nShe opens [[check prop]] the door.\n\n/* An old scene\n\nLEO\nGone.\n*/\n\n===\n\n~Sing a song\n\n[[A note\n\nover paragraphs]]\n\nThe end.",
    );
    assert_eq!(
        script.elements,
        [
            Element::Section("Act One".into()),
            Element::Synopsis("She finds the key.".into()),
            Element::Action("She opens  the door.".into()),
            Element::PageBreak,
            Element::Lyrics("Sing a song".into()),
            Element::Action("The end.".into()),
        ]
    );
}

#[test]
fn windows_line_ends_and_emphasis_read_as_plain_text() {
    let script = read("INT. BAR\r\n\r\nShe is *very* **tired**.\r\n\r\nMARA\r\nI'm _done_.");
    assert_eq!(
        script.elements,
        [
            Element::Heading("INT. BAR".into()),
            Element::Action("She is very tired.".into()),
            dialogue("MARA", &["I'm done."]),
        ]
    );
}
