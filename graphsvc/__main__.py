from graphsvc.cli import run

# Guarded: worker processes started with forkserver re-import the main module.
if __name__ == "__main__":
    run()
