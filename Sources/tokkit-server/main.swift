print("tokkit-server")
