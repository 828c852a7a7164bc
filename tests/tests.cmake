kp_c_test(test_model)
