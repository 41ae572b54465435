use super::*;

/// An I420 picture `w` x `h` whose luma is `luma(x, y)` and chroma flat.
fn picture(w: usize, h: usize, luma: impl Fn(usize, usize) -> u8) -> Vec<u8> {
    let mut data: Vec<u8> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| luma(x, y))
        .collect();
    data.resize(w * h * 3 / 2, 128);
    data
}

#[test]
fn a_flat_picture_stays_flat_and_the_bars_are_black() {
    let source = picture(1920, 1080, |_, _| 200);
    let mut out = vec![0; 1280 * 720 * 3 / 2];
    Fitter::new((1920, 1080), (1280, 720), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
    assert!(out[..1280 * 720].iter().all(|&v| v == 200));
    assert!(out[1280 * 720..].iter().all(|&v| v == 128));

    // A square picture on a wide frame: bars left and right.
    let source = picture(720, 720, |_, _| 200);
    let mut out = vec![0; 1280 * 720 * 3 / 2];
    Fitter::new((720, 720), (1280, 720), Fit::Pad, Reframe::CENTRE).fit(&source, &mut out);
    let row = &out[360 * 1280..361 * 1280];
    assert!(row[..280].iter().all(|&v| v == BLACK_LUMA), "left bar");
    assert!(row[280..1000].iter().all(|&v| v == 200), "the picture");
    assert!(row[1000..].iter().all(|&v| v == BLACK_LUMA), "right bar");
}

/// Fails when the crop window stays centred whatever the shot asks: a 16:9 gradient in
/// a 9:16 frame shows its left edge when framed at x = 0 and its right edge at x = 1.
#[test]
fn a_reframed_crop_keeps_the_column_asked_for() {
    let (w, h) = (640usize, 360usize);
    let mut source = vec![128u8; w * h * 3 / 2];
    for y in 0..h {
        for x in 0..w {
            source[y * w + x] = (x * 255 / (w - 1)) as u8;
        }
    }
    let luma_at = |x: f64| {
        let mut out = vec![0u8; 90 * 160 * 3 / 2];
        Fitter::new((640, 360), (90, 160), Fit::Crop, Reframe { x, y: 0.5 }).fit(&source, &mut out);
        let row = &out[80 * 90..81 * 90];
        (row[0], row[89])
    };
    let (left, _) = luma_at(0.0);
    let (_, right) = luma_at(1.0);
    let (middle_left, middle_right) = luma_at(0.5);
    assert!(left < 10, "the left edge ({left})");
    assert!(right > 245, "the right edge ({right})");
    // Centred, the window is the middle of the scaled picture (97 to 187 of 284 columns).
    assert!(
        (80..100).contains(&middle_left) && (155..175).contains(&middle_right),
        "the centre ({middle_left}..{middle_right})"
    );
}

#[test]
fn a_gradient_keeps_its_place_and_crop_cuts_the_overflow() {
    // A 4:3 picture cropped into 16:9 loses an eighth at the top and at the bottom.
    let source = picture(640, 480, |_, y| (y * 255 / 479) as u8);
    let mut out = vec![0; 320 * 180 * 3 / 2];
    Fitter::new((640, 480), (320, 180), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
    let column: Vec<u8> = (0..180).map(|y| out[y * 320 + 160]).collect();
    assert!((i32::from(column[0]) - 32).abs() <= 3, "{}", column[0]);
    assert!((i32::from(column[90]) - 128).abs() <= 3, "{}", column[90]);
    assert!((i32::from(column[179]) - 223).abs() <= 3, "{}", column[179]);
    assert!(column.windows(2).all(|p| p[0] <= p[1]), "still a ramp");
    // Across, nothing is cut: the first column shows the first source column.
    let source = picture(640, 480, |x, _| (x * 255 / 639) as u8);
    Fitter::new((640, 480), (320, 180), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
    let row = &out[90 * 320..91 * 320];
    assert!(row[0] <= 2 && row[319] >= 253, "{} {}", row[0], row[319]);
}

/// Fails when a row's taps read the wrong source pixels (the edges repeated, the crop's
/// offset, the columns read): every output pixel of a noisy picture is the two axes'
/// weights applied to the source, computed plainly without rounding between the axes (within
/// that rounding).
#[test]
fn each_pixel_is_its_taps_weighted() {
    let (w, h) = (96usize, 54usize);
    // Kept from the ends, so that the kernel's overshoot is never clamped between the axes.
    let noise: Vec<u8> = (0..w * h * 3 / 2)
        .map(|i| 48 + ((i * 7919) % 160) as u8)
        .collect();
    for (to, fit, centre) in [
        ((64, 36), Fit::Crop, Reframe::CENTRE),
        ((36, 64), Fit::Crop, Reframe { x: 0.2, y: 0.5 }),
        ((60, 60), Fit::Pad, Reframe::CENTRE),
        ((192, 108), Fit::Crop, Reframe::CENTRE),
    ] {
        let fitter = Fitter::new((w as u32, h as u32), to, fit, centre);
        let mut out = vec![0; (to.0 * to.1 * 3 / 2) as usize];
        fitter.fit(&noise, &mut out);
        let plane = &fitter.planes[0];
        let (ow, oh) = plane.out;
        for y in plane.down.covered.clone() {
            for x in plane.across.covered.clone() {
                let (n, m) = (y - plane.down.covered.start, x - plane.across.covered.start);
                let mut sum = 0.0;
                for (k, &wy) in plane.down.weights(n).iter().enumerate() {
                    for (j, &wx) in plane.across.weights(m).iter().enumerate() {
                        let pixel = noise[plane.down.source(n, k) * w + plane.across.source(m, j)];
                        sum += f64::from(wy) * f64::from(wx) * f64::from(pixel);
                    }
                }
                let wanted = (sum / f64::from(ONE) / f64::from(ONE)).clamp(0.0, 255.0);
                let got = f64::from(out[y * ow + x]);
                assert!(
                    (got - wanted).abs() <= 2.0,
                    "{to:?} at {x},{y}: {got} against {wanted}"
                );
            }
        }
        assert_eq!(out.len(), ow * oh * 3 / 2);
    }
}

#[test]
fn a_downscale_averages_rather_than_skips() {
    // One-pixel stripes, black and white: halved, every pixel is grey, not black or white.
    let source = picture(400, 200, |x, _| if x % 2 == 0 { 0 } else { 255 });
    let mut out = vec![0; 200 * 100 * 3 / 2];
    Fitter::new((400, 200), (200, 100), Fit::Crop, Reframe::CENTRE).fit(&source, &mut out);
    let row = &out[50 * 200..51 * 200];
    assert!(
        row[4..196].iter().all(|&v| (100..=155).contains(&v)),
        "{:?}",
        &row[..16]
    );
}
