//! The octal methods the back-ends share: each file states one method (its algorithm, cost
//! and invariant) that two or more back-ends of [`super::BACKENDS`], or the census, run;
//! none of them is a back-end or declares a registry entry.
//!
//! - [`rare_common`]: the rare/common split (Flammenkamp) and its masks, histograms and mex;
//! - [`candidate_search`]: the mex as the first candidate no split pair attains;
//! - [`published`]: a table filled in order by several threads, read up to the finished prefix;
//! - [`period`]: the period proved from finitely many values (Guy and Smith);
//! - [`proved_copy`]: a fill that stops computing once a period is proved, and copies;
//! - [`histogram`]: the value histograms at each power of two.

pub mod candidate_search;
pub mod histogram;
pub mod period;
pub mod proved_copy;
pub mod published;
pub mod rare_common;
