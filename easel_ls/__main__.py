from easel_ls.cli import run

run()
