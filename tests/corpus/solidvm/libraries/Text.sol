// String helpers attached to `string` with `using Text for string;`.
library Text {
    function orDefault(string value, string fallbackText) internal pure returns (string) {
        if (bytes(value).length == 0) {
            return fallbackText;
        }
        return value;
    }
}
