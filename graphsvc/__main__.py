from graphsvc.cli import run

run()
