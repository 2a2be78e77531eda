#!/bin/sh
# mk/man1.sh PROGRAM VERSION DOCDIR SUMMARY: prints a man page (section 1) for bin/PROGRAM made
# from its --help text, which describes every option (tests/integration/cli_help.sh checks
# that). Used by `make install`.
prog=$1 version=$2 docdir=$3 summary=$4
printf '.TH %s 1 "" "Tempo %s" "Tempo"\n.SH NAME\n%s \\- %s\n' "$prog" "$version" "$prog" "$summary"
printf '.SH DESCRIPTION\n.nf\n'
# roff: a backslash is written \e; a line starting with . or ' is protected by \&.
"bin/$prog" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
printf '.fi\n.SH SEE ALSO\nThe documentation installed in %s.\n' "$docdir"
