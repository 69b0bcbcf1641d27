// Fixed-point units shared by the corpus: file-level constants and free functions.
//
// A SolidVM decimal keeps as many places as the most precise operand of an operation (a quotient
// is rounded half-to-even at that many places), so ratios are taken with `ONE`, which carries
// 18 places, in the numerator.

uint constant BPS = 10000;
decimal constant ONE = 1.000000000000000000;

// `bps` basis points as a fraction with 18 places, e.g. 25 -> 0.002500000000000000
function bpsToFraction(uint bps) pure returns (decimal) {
    return decimal(bps) * ONE / decimal(BPS);
}

// `bps` basis points of `amount`, rounded down
function bpsOf(uint amount, uint bps) pure returns (uint) {
    return amount * bps / BPS;
}
