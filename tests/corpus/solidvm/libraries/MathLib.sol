// Integer helpers attached to `uint` with `using MathLib for uint;`.
//
// SolidVM applies a `using` only in the contract that declares it, and it looks the library
// function up in the contract that is running, so the contracts that use these declare the
// `using` themselves (bases do not pass it on).
library MathLib {
    // x * num / den, rounded up
    function mulDivUp(uint x, uint num, uint den) internal pure returns (uint) {
        uint product = x * num;
        uint quotient = product / den;
        if (quotient * den < product) {
            return quotient + 1;
        }
        return quotient;
    }

    function atMost(uint x, uint limit) internal pure returns (uint) {
        if (x > limit) {
            return limit;
        }
        return x;
    }
}
