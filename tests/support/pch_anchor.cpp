// The one source of berth_test_pch, the target whose precompiled header every test reuses.
