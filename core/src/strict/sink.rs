//! Where step 2 puts what it keeps: the crate's one sink model ([`Sink`], shared with
//! the reference walk and strict's matcher and writer), for both of step 2's walks,
//! the code-point walk ([`super::keep::Keeper`]) and the dense-run walk
//! ([`super::dense`]). Its own file so that neither walk imports the other for it.

pub(crate) use crate::prose::Sink;
