//! What the block passes know of the finished values (see [`super`]'s module doc): under the
//! mask, the rare positions, the common ones the sweep reads, the histogram, the common flags
//! per parity of the heap and the witness lists, kept up to date as each value is decided.

use super::row::row_width;
use super::{MAX_WIDTH, WITNESSES, WITNESS_ROUND};
use crate::base::error::{Error, Result};
use crate::octal::method::rare_common::{Histogram, Mask};

/// A position and its value, as the hot loops read them (one 8-byte load).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// The position.
    pub at: u32,
    /// g(at).
    pub value: u32,
}

/// The positions below this bound whose value is common are kept in a list for the sweep
/// (the pairs with a rare small heap are enumerated elsewhere, so the sweep skips them);
/// a sweep past it reads g directly.
pub const SWEEP_LIST: usize = 1 << 16;

/// What the block passes know of the finished values: the mask, the rare positions and the
/// common ones below [`SWEEP_LIST`] with their values, the histogram.
pub(super) struct Split {
    pub(super) mask: Mask,
    /// Positions from 0 recorded so far.
    pub(super) recorded: usize,
    /// The positions 1 <= r < recorded that are rare under the mask, ascending.
    pub(super) rare: Vec<Pos>,
    /// The positions 1 <= a < min(recorded, SWEEP_LIST) that are common, ascending.
    pub(super) sweepers: Vec<Pos>,
    pub(super) histogram: Histogram,
    /// `common[p][v]` is 1 when v is common for a heap n of parity p under the mask, else 0
    /// (one byte per value of the widest row; the two agree for the first kind).
    pub(super) common: [Vec<u8>; 2],
    /// For each value v rare for some heap, the pairs to try first for it ([`witness_rare`]):
    /// entries (a, u) with g(a) = u ^ v, the most frequent u first, so that a pair
    /// (a, m - a) attains v when g(m - a) = u.
    ///
    /// [`witness_rare`]: super::sweep::witness_rare
    pub(super) witnesses: Vec<Vec<Pos>>,
    /// The first rare position past `u32::MAX` recorded, which [`Pos`] cannot hold: the fill
    /// stops with [`Split::check_positions`]'s error once the block that met it is done (its
    /// values and any after it unreported), never building on without it.
    pub(super) rare_past_u32: Option<usize>,
}

impl Split {
    pub(super) fn new() -> Split {
        Split {
            mask: Mask::NONE,
            recorded: 0,
            rare: Vec::new(),
            sweepers: Vec::new(),
            histogram: Histogram::new(),
            common: [vec![0; MAX_WIDTH], vec![0; MAX_WIDTH]],
            witnesses: Vec::new(),
            rare_past_u32: None,
        }
    }

    /// Records g(n) = v, n being the next position.
    #[inline]
    pub(super) fn record(&mut self, n: usize, v: u16) {
        debug_assert_eq!(n, self.recorded);
        self.recorded = n + 1;
        if n == 0 {
            return;
        }
        self.histogram.add(n, v);
        if self.mask.splits() {
            if self.mask.rare(v as u32, n) {
                self.push_rare(n, v);
            } else if n < SWEEP_LIST {
                self.sweepers.push(Pos {
                    at: n as u32,
                    value: v as u32,
                });
            }
        }
    }

    /// Adds g(r) = v to the rare list, or notes a position past `u32::MAX`.
    #[cold]
    fn push_rare(&mut self, r: usize, v: u16) {
        match u32::try_from(r) {
            Ok(at) => self.rare.push(Pos {
                at,
                value: v as u32,
            }),
            Err(_) => {
                self.rare_past_u32.get_or_insert(r);
            }
        }
    }

    /// Refuses to go on past a rare position that [`Pos`] cannot hold: one line, naming it.
    pub(super) fn check_positions(&self) -> Result<()> {
        match self.rare_past_u32 {
            None => Ok(()),
            Some(n) => Err(Error::Unsupported {
                backend: "octal-block",
                what: format!(
                    "a rare position past 2^32 - 1 (heap {n}): its rare positions are kept as u32; the last checkpoint written keeps what came before"
                ),
            }),
        }
    }

    /// The end of the positions the sweep list stands for.
    #[inline]
    pub(super) fn list_end(&self) -> usize {
        self.recorded.min(SWEEP_LIST)
    }

    pub(super) fn take_mask(&mut self, mask: Mask, g: &[u16]) {
        self.mask = mask;
        self.rare.clear();
        self.sweepers.clear();
        for (r, &v) in g.iter().enumerate().skip(1) {
            if mask.rare(v as u32, r) {
                self.push_rare(r, v);
            } else if r < SWEEP_LIST {
                self.sweepers.push(Pos {
                    at: r as u32,
                    value: v as u32,
                });
            }
        }
        for (p, common) in self.common.iter_mut().enumerate() {
            for (v, c) in common.iter_mut().enumerate() {
                *c = !mask.rare(v as u32, p) as u8;
            }
        }
    }

    /// Forgets the mask and every list built on it (their memory given back).
    pub(super) fn drop_mask(&mut self) {
        self.mask = Mask::NONE;
        self.rare = Vec::new();
        self.sweepers = Vec::new();
        self.witnesses = Vec::new();
    }

    /// Lists each rare value's witnesses from the common positions a >= `floor` below the
    /// sweep list's end and the histogram as they stand. The order is a guess, so a stale
    /// list costs time, never exactness: a try of (a, u) finds v about as often as u is
    /// frequent, but the values of Officers are far from independent (all the positions of
    /// one value can miss the heap's partners of another), so the list takes at most
    /// [`WITNESS_ROUND`] positions of each partner value u in turn, the most frequent u
    /// first, then the next ones of each.
    pub(super) fn list_witnesses(&mut self, floor: usize) {
        let top = self.histogram.values().saturating_sub(1);
        let mut by_value: Vec<Vec<u32>> = vec![Vec::new(); top + 1];
        for e in &self.sweepers {
            if e.at as usize >= floor {
                by_value[e.value as usize].push(e.at);
            }
        }
        // partner values by frequency (a rare one is as good a witness, only seldom met)
        let mut partners: Vec<usize> = (0..=top).filter(|&u| self.histogram.count(u) > 0).collect();
        partners.sort_by_key(|&u| std::cmp::Reverse(self.histogram.count(u)));
        let span = row_width(top).min(MAX_WIDTH);
        self.witnesses = (0..span)
            .map(|v| {
                let mut list = Vec::new();
                if !self.mask.rare(v as u32, 0) && !self.mask.rare(v as u32, 1) {
                    return list;
                }
                for round in 0.. {
                    let before = list.len();
                    for &u in &partners {
                        let Some(positions) = by_value.get(u ^ v) else {
                            continue;
                        };
                        let turn = positions.iter().skip(round * WITNESS_ROUND);
                        let room = WITNESSES - list.len();
                        list.extend(turn.take(WITNESS_ROUND.min(room)).map(|&at| Pos {
                            at,
                            value: u as u32,
                        }));
                        if list.len() == WITNESSES {
                            return list;
                        }
                    }
                    if list.len() == before {
                        break;
                    }
                }
                list
            })
            .collect();
    }
}
