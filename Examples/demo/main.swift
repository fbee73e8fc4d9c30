print("TokKit demo: coming with sessions")
