package io.sluice.promql.parse;

import io.sluice.promql.ParseException;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Printer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Test aid: one query a line on stdin ({@code \n} written as backslash-n), prints OK/ERR lines. */
public final class ParserCli {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        StringBuilder out = new StringBuilder();
        while ((line = in.readLine()) != null) {
            String q = line.replace("\\n", "\n");
            try {
                Expr e = Parser.parse(q);
                if ("ast".equals(System.getenv("MODE"))) {
                    out.append("OK ").append(io.sluice.promql.ast.AstJson.toJson(e)).append('\n');
                    continue;
                }
                if ("pretty".equals(System.getenv("MODE"))) {
                    out.append("OK ").append(Printer.pretty(e).replace("\n", "\\n")).append('\n');
                    continue;
                }
                out.append("OK ").append(Printer.print(e).replace("\n", "\\n")).append(" :: ").append(e.type().apiName());
            } catch (ParseException e) {
                out.append("ERR ").append(e.getMessage().replace("\n", "\\n"));
            } catch (RuntimeException e) {
                out.append("CRASH ").append(e);
            }
            out.append('\n');
        }
        System.out.print(out);
    }
}
