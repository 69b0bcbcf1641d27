pragma solidity ^0.8.0;

// The fungible-token interface the corpus codes against (contracts call tokens through it).
interface IERC20 {
    event Transfer(address indexed from, address indexed to, uint value);
    event Approval(address indexed holder, address indexed spender, uint value);

    function totalSupply() external view returns (uint);
    function balanceOf(address holder) external view returns (uint);
    function allowance(address holder, address spender) external view returns (uint);
    function transfer(address to, uint amount) external returns (bool);
    function approve(address spender, uint amount) external returns (bool);
    function transferFrom(address from, address to, uint amount) external returns (bool);
}
