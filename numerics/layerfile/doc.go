// Package layerfile reads the attention layers people save, as numpy
// .npz archives and .safetensors files, into headlab's canonical heads,
// and writes canonical layers back.
//
// # PyTorch's nn.MultiheadAttention
//
// A state dict of torch.nn.MultiheadAttention(E, H, bias=…) with equal
// query, key and value widths holds
//
//	in_proj_weight  (3E×E)  rows 0…E−1 W_q, E…2E−1 W_k, 2E…3E−1 W_v
//	in_proj_bias    (3E)    b_q, b_k, b_v          (absent when bias=False)
//	out_proj.weight (E×E)   W_o
//	out_proj.bias   (E)     b_o                    (absent when bias=False)
//
// and headlab reads the layer's output at the last token through a scalar
// readout, readout.weight (1×E): y(X) = u·MHA(X)_N with u the readout,
// the last token x_N the query and every token a key and a value. Head h
// owns rows h·dh…(h+1)·dh−1 of W_q, W_k, W_v (W_q^h and so on, dh = E/H)
// and the same columns of W_o (W_o^h). The terms b_k·(W_q x_N + b_q) are
// the same for every token and cancel in the softmax, which leaves
//
//	y(X) = C + Σ_h Σ_i softmax_i(x_iᵀ(W_h x_N + c_h)) · (v_h · x_i)
//
//	W_h = (W_k^h)ᵀ W_q^h / √dh      (keys on the left: x_iᵀ W_h x_N)
//	c_h = (W_k^h)ᵀ b_q^h / √dh
//	v_h = (W_v^h)ᵀ (W_o^h)ᵀ u
//	C   = u·b_o + Σ_h u·W_o^h b_v^h
//
// A state dict does not record H: it comes from the caller, or from the
// file (a scalar array num_heads in an .npz, the metadata key num_heads in
// a .safetensors). Keys may carry a common module prefix ("attn.").
//
// The Transformer scene's class, that attention followed by
// Linear(E, K, bias=False), ReLU and Linear(K, 1, bias=False) (keys
// ffn.0.weight and ffn.2.weight instead of readout.weight), becomes a
// transformer.Network: the same W_h, V_h = (W_o^h W_v^h)ᵀ (d×E), and one
// unit a_k ReLU(b_k·y) per row b_k of ffn.0.weight, a_k from ffn.2.weight.
//
// # Canonical files
//
// Write stores a Model under the keys W (H×d×d), v (H×d), c (H×d) and
// C (a scalar), which Read also accepts; an .npz or .safetensors file
// written by Write reads back to the same numbers bit for bit.
//
// # Limits
//
// A file is read whole, at most MaxBytes; a tensor's declared shape is
// checked against the layer's limits before anything is allocated; every
// number must be finite. A malformed or hostile file gets an error and
// nothing else.
package layerfile
