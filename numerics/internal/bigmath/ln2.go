package bigmath

// ln2Hex is ln 2 rounded down to 2400 bits, as the integer ⌊ln 2 · 2^2400⌋
// in hexadecimal (computed with Python's correctly rounded decimal ln at
// 800 digits; TestLn2 recomputes it by a series).
const ln2Hex = "0x" +
	"b17217f7d1cf79abc9e3b39803f2f6af40f343267298b62d8a0d175b8baafa2b" +
	"e7b876206debac98559552fb4afa1b10ed2eae35c138214427573b291169b825" +
	"3e96ca16224ae8c51acbda11317c387eb9ea9bc3b136603b256fa0ec7657f74b" +
	"72ce87b19d6548caf5dfa6bd38303248655fa1872f20e3a2da2d97c50f3fd5c6" +
	"07f4ca11fb5bfb90610d30f88fe551a2ee569d6dfc1efa157d2e23de1400b396" +
	"17460775db8990e5c943e732b479cd33cccc4e659393514c4c1a1e0bd1d6095d" +
	"25669b333564a3376a9c7f8a5e148e82074db6015cfe7aa30c480a5417350d2c" +
	"955d5179b1e17b9dae313cdb6c606cb1078f735d1b2db31b5f50b5185064c18b" +
	"4d162db3b365853d7598a1951ae273ee5570b6c68f96983496d4e6d330af889b" +
	"44a02554731cdc8ea17293d1" +
	"p-2400"
