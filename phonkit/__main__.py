from phonkit.cli import command_line

command_line()
