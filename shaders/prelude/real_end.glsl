// Ends one instantiation of the generic prelude files (see real_f64.glsl).
#undef REAL
#undef PPL_SFX
#undef PPL_NAN
#undef PPL_INF
#undef PPL_LN2_HI
#undef PPL_LN2_LO
#undef PPL_EXP_OVERFLOW
#undef PPL_EXP_UNDERFLOW
#undef PPL_EXP_TINY
#undef PPL_EXPM1_SATURATE
#undef PPL_EXPM1_TINY
#undef PPL_EXPM1_KSPLIT
#undef PPL_TANH_SATURATE
#undef PPL_TANH_TINY
#undef PPL_ERF_SMALL
#undef PPL_ALL_INTEGERS
#undef PPL_SPLITTER
