print("noise")
