# cmake -DIN=file -DOUT=file.inc -P EmbedFile.cmake
# Writes IN as a C++ raw string constant kHarnessSource.
file(READ ${IN} CONTENT)
file(WRITE ${OUT} "static const char kHarnessSource[] = R\"INCANT_CL(${CONTENT})INCANT_CL\";\n")
