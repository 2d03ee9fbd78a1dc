//! The block method's tests: its tables against the control's (small blocks, chunks,
//! masks taken and dropped) and each fast store against its checked twin.

use super::mark::{mark_rare_pairs, Values, View};
use super::row::{least_common_missing, rare_below_met, row_width};
use super::split::Split;
use super::*;
use crate::octal::method::rare_common::Mask;
use crate::octal::{code_strategy, control_values as control};

fn build(method: OctalBlock, code: &str, limit: usize) -> Vec<u16> {
    let mut g = vec![0u16; limit + 1];
    method
        .fill(&Rules::parse(code).unwrap(), &mut g, 0)
        .unwrap();
    g
}

/// Small prefixes and blocks, the mask always taken: the block passes on small tables.
fn small(prefix: usize, block: usize) -> OctalBlock {
    OctalBlock {
        prefix,
        block,
        always_mask: true,
    }
}

#[test]
fn a_mask_that_no_longer_leaves_the_positions_sparse_is_dropped_with_its_lists() {
    // 40 zeros, rare under every mask of the first kind (popcount 0 is even) and at every
    // other position under the second, then 1 and 2: no mask leaves these 41 positions
    // sparse, so a mask taken before (by hand here) goes.
    let mut g = vec![0u16; 40];
    g.extend((0..40).map(|i| 1 + (i % 2) as u16));
    let method = OctalBlock {
        always_mask: false,
        ..small(8, 8)
    };
    let mut split = Split::new();
    for (n, &v) in g[..42].iter().enumerate() {
        split.record(n, v);
    }
    let rules = Rules::parse("0.6").unwrap();
    split.take_mask(Mask::value(1), &g[..42]);
    assert!(!split.rare.is_empty());
    method.choose_mask(&rules, &mut split, &g[..42]);
    assert!(!split.mask.splits());
    assert!(split.rare.is_empty() && split.sweepers.is_empty() && split.witnesses.is_empty());
    // values too wide for a byte row drop the mask whatever the sparseness
    let wide = [vec![0u16; 100], vec![MAX_WIDTH as u16]].concat();
    let mut split = Split::new();
    for (n, &v) in wide.iter().enumerate() {
        split.record(n, v);
    }
    split.take_mask(Mask::value(1), &wide);
    method.choose_mask(&rules, &mut split, &wide);
    assert!(!split.mask.splits());
}

#[test]
fn a_rare_position_past_u32_stops_the_fill_with_an_error_not_a_truncated_entry() {
    // under Mask::value(1) an even value is rare (popcount of v & 1 is 0) and an odd one
    // common
    let g = [0u16, 1, 2, 3];
    let mut split = Split::new();
    for (n, &v) in g.iter().enumerate() {
        split.record(n, v);
    }
    split.take_mask(Mask::value(1), &g);
    let rare = split.rare.clone();
    assert_eq!(rare, [Pos { at: 2, value: 2 }]);
    split.recorded = 1 << 32;
    split.record(1 << 32, 1);
    assert!(
        split.check_positions().is_ok(),
        "a common value past u32 is not listed"
    );
    split.record((1 << 32) + 1, 2);
    assert_eq!(split.rare, rare, "no entry with a truncated position");
    let e = split.check_positions().unwrap_err().to_string();
    assert!(
        e.contains("octal-block") && e.contains("4294967297") && !e.contains('\n'),
        "{e}"
    );
}

#[test]
fn chunks_that_keep_the_split_give_the_controls_table_and_a_stale_one_is_not_used() {
    for code in ["0.6", "grundy", "0.127", "4.07", "0.16"] {
        let rules = Rules::parse(code).unwrap();
        let want = control(code, 3000);
        for (prefix, block, step) in [(64, 64, 97), (16, 7, 500), (64, 64, 3001)] {
            let method = OctalBlock {
                always_mask: false,
                ..small(prefix, block)
            };
            let mut g = vec![0u16; 3001];
            let mut kept: Kept = None;
            let mut from = 0;
            while from < g.len() {
                let end = (from + step).min(g.len());
                method
                    .fill_kept(&rules, &mut g[..end], from, &mut kept)
                    .unwrap();
                from = end;
            }
            assert_eq!(
                g, want,
                "{code}, prefix {prefix}, block {block}, step {step}"
            );
            // what a chunk kept for 0..3001 is not taken for a fill from 1000
            let mut again = want.clone();
            again[1000..].fill(0);
            method
                .fill_kept(&rules, &mut again, 1000, &mut kept)
                .unwrap();
            assert_eq!(again, want, "{code}: a fill from 1000 after a kept 3001");
        }
    }
}

#[test]
fn small_blocks_give_the_controls_table_on_every_code_of_two_digits() {
    let mut codes: Vec<String> = vec!["grundy".into(), "0.6".into(), "4.07".into()];
    for d0 in [0, 4] {
        for d1 in 0..8 {
            for d2 in 0..8 {
                codes.push(format!("{d0}.{d1}{d2}"));
            }
        }
    }
    for code in &codes {
        let want = control(code, 500);
        for (prefix, block) in [(8, 1), (16, 4), (16, 7), (32, 64)] {
            assert_eq!(
                build(small(prefix, block), code, 500),
                want,
                "{code}, prefix {prefix}, block {block}"
            );
        }
    }
}

#[test]
fn officers_with_its_mask_gives_the_controls_table() {
    let want = control("0.6", 12_000);
    for block in [1, 3, 64, 512] {
        let got = build(
            OctalBlock {
                prefix: 64,
                block,
                always_mask: false,
            },
            "0.6",
            12_000,
        );
        assert_eq!(got, want, "block {block}");
    }
}

#[test]
fn a_fill_from_the_middle_finishes_the_same_table() {
    let want = control("0.6", 6000);
    let mut g = want.clone();
    g[5000..].fill(0);
    small(64, 100)
        .fill(&Rules::parse("0.6").unwrap(), &mut g, 5000)
        .unwrap();
    assert_eq!(g, want);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
    /// Random codes, prefixes and blocks give the control's table both with the mask always
    /// taken (so that small tables run the block passes; the smaller limit keeps a rare list
    /// of most positions affordable) and with masks chosen and dropped as sparseness says.
    #[test]
    fn random_codes_and_blocks_give_the_controls_table(
        code in code_strategy(),
        limit_masked in 0usize..=700,
        limit in 0usize..=2500,
        prefix in 1usize..=64,
        block in 1usize..=80,
    ) {
        for (always_mask, limit) in [(true, limit_masked), (false, limit)] {
            let method = OctalBlock { always_mask, ..small(prefix, block) };
            proptest::prop_assert_eq!(
                build(method, &code, limit),
                control(&code, limit),
                "always_mask {}",
                always_mask
            );
        }
    }

    #[test]
    fn mark_partners_marks_what_its_checked_twin_marks(
        g in proptest::collection::vec(0u16..300, 2..400),
        picks in proptest::collection::vec(0usize..400, 0..60),
        bits in 9u32..=11,
    ) {
        let m = g.len() - 1;
        let mut at: Vec<usize> = picks.into_iter().map(|a| a % (m + 1)).collect();
        at.sort_unstable();
        let entries: Vec<Pos> = at
            .iter()
            .map(|&a| Pos { at: a as u32, value: g[a] as u32 })
            .collect();
        let (mut fast, mut slow) = (vec![0u8; 1 << bits], vec![0u8; 1 << bits]);
        mark_partners(&mut fast, &g, m, &entries);
        mark_partners_checked(&mut slow, &g, m, &entries);
        proptest::prop_assert_eq!(fast, slow);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn mark_lanes_marks_what_its_checked_twin_marks(
        g in proptest::collection::vec(0u16..1000, 40..300),
        picks in proptest::collection::vec(0usize..300, 0..40),
        bits in 6u32..=11,
    ) {
        let m0 = g.len() - LANES;
        let mut at: Vec<usize> = picks.into_iter().map(|a| a % (m0 + 1)).collect();
        at.sort_unstable();
        let entries: Vec<Pos> = at
            .iter()
            .map(|&a| Pos { at: a as u32, value: g[a] as u32 })
            .collect();
        let width = 1usize << bits;
        let (mut fast, mut slow) = (vec![0u8; LANES * width], vec![0u8; LANES * width]);
        mark_lanes(&mut fast, width, &g, m0, &entries);
        mark_lanes_checked(&mut slow, width, &g, m0, &entries);
        proptest::prop_assert_eq!(fast, slow);
    }
}

#[test]
#[should_panic]
fn mark_lanes_refuses_rows_wider_than_u16_indices() {
    let g = vec![0u16; 64];
    let width = 1 << 12;
    mark_lanes(&mut vec![0u8; LANES * width], width, &g, 0, &[]);
}

#[test]
#[should_panic]
fn mark_partners_refuses_a_partner_past_the_table() {
    let g = [0u16, 1, 2, 3];
    // m = 5 reads g[5 - 1] = g[4], past the end
    mark_partners(&mut [0u8; 64], &g, 5, &[Pos { at: 1, value: 1 }]);
}

#[test]
fn a_view_reads_and_marks_as_the_whole_table_does() {
    let g: Vec<u16> = (0..100u16).map(|i| (i * 37 + 11) % 61).collect();
    let entries: Vec<Pos> = [1u32, 4, 9, 30, 55]
        .iter()
        .map(|&a| Pos {
            at: a,
            value: g[a as usize] as u32,
        })
        .collect();
    for cut in [0, 1, 50, 99, 100] {
        let view = View {
            head: &g[..cut],
            tail: &g[cut..],
        };
        assert!((0..100).all(|i| view.at(i) == g[i]), "cut {cut}");
        let (mut by_view, mut by_slice) = ([0u8; 128], [0u8; 128]);
        view.mark(&mut by_view, 90, &entries);
        g[..].mark(&mut by_slice, 90, &entries);
        assert_eq!(by_view, by_slice, "cut {cut}");
    }
}

#[test]
fn grundys_game_leaves_out_the_equal_split() {
    // m = 4 with rare entries 1, 2, 3: the pair (2, 2) is not a move of Grundy's game
    let g = [0u16, 0, 0, 1, 0];
    let entries: Vec<Pos> = (1..4)
        .map(|a| Pos {
            at: a,
            value: g[a as usize] as u32,
        })
        .collect();
    let mut row = [0u8; 64];
    mark_rare_pairs(&mut row, &g[..], 4, &entries, true);
    // (1, 3) and (3, 1): 0 ^ 1 = 1; (2, 2) would mark 0
    assert_eq!((row[0], row[1]), (0, 1));
    mark_rare_pairs(&mut row, &g[..], 4, &entries, false);
    assert_eq!(row[0], 1);
}

#[test]
fn the_row_width_holds_every_option_and_mex() {
    // values up to 5: xors up to 7, width 8 (at least 64)
    assert_eq!(row_width(5), 64);
    assert_eq!(row_width(63), 64);
    assert_eq!(row_width(64), 128);
    assert_eq!(row_width(325), 512);
    assert_eq!(row_width(511), 512);
    assert_eq!(row_width(512), 1024);
}

#[test]
fn the_least_common_missing_value_and_the_rare_check_read_the_row() {
    // mask 1: odd values common
    let common: Vec<u8> = (0..64).map(|v| (v % 2) as u8).collect();
    let mut row = vec![0u8; 64];
    assert_eq!(least_common_missing(&row, &common), 1);
    for v in [1, 3, 5, 7, 9, 0, 2, 4] {
        row[v] = 1;
    }
    assert_eq!(least_common_missing(&row, &common), 11);
    let mut met = 0;
    // rare 6 and 8 below 11 unmarked
    assert!(!rare_below_met(&row, &common, 11, &mut met));
    assert_eq!(met, 6);
    row[6] = 1;
    row[8] = 1;
    // 10 is rare and below 11
    assert!(!rare_below_met(&row, &common, 11, &mut met));
    assert_eq!(met, 10);
    row[10] = 1;
    assert!(rare_below_met(&row, &common, 11, &mut met));
    // 10 unmarked, but not below 10
    assert!(rare_below_met(&row, &common, 10, &mut 0));
}

#[test]
fn codes_with_several_splitting_digits_give_the_controls_table() {
    // .354 (splits at 2 and 3) and .644 (at 1, 2 and 3): digits of both parities, whose
    // sweeps take turns and whose far pass leaves the rest to the near pass (FAR_SWEEP);
    // past the prefix with the registry's parameters, and with small blocks from early on
    for code in [".354", ".644", "0.447"] {
        let want = control(code, 6000);
        assert_eq!(build(OctalBlock::DEFAULT, code, 6000), want, "{code}");
        assert_eq!(
            build(small(64, 64), code, 6000),
            want,
            "{code} small blocks"
        );
    }
}
