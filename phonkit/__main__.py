from phonkit.cli import main

main()
