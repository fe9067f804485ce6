//! Helpers shared by the crate's unit tests.

/// `corpus` followed by `copies` mutated copies of its entries, taken in
/// turn: each copy has 1 to `max_edits` edits (remove, insert or replace
/// one byte), inserted and replacing bytes drawn from `alphabet`, or any
/// byte when it is `None`. A fixed xorshift seed makes every run test the
/// same inputs.
pub(crate) fn with_mutations(
    mut corpus: Vec<Vec<u8>>,
    copies: usize,
    max_edits: u64,
    alphabet: Option<&[u8]>,
    mut seed: u64,
) -> Vec<Vec<u8>> {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let originals = corpus.len();
    for k in 0..copies {
        let mut bytes = corpus[k % originals].clone();
        for _ in 0..1 + next() % max_edits {
            let at = (next() as usize) % (bytes.len() + 1);
            let byte = match alphabet {
                Some(alphabet) => alphabet[(next() as usize) % alphabet.len()],
                None => next() as u8,
            };
            match next() % 3 {
                0 if at < bytes.len() => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, byte),
                _ if at < bytes.len() => bytes[at] = byte,
                _ => {}
            }
        }
        corpus.push(bytes);
    }
    corpus
}
