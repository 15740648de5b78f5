package io.holdfast.spring;

import io.holdfast.LockNames;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;
import java.util.regex.Pattern;

/**
 * The name of a {@link Locked} method's lock: a literal, a template with {@code #{...}} parts, or one SpEL expression
 * (see {@link Locked#name()}), parsed once.
 */
final class LockName {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    /** Lock-name characters only, not starting with '#': such text is a literal name. */
    private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9\\-_.:/@+=][A-Za-z0-9\\-_.:/@+=#]*");

    private final String source;
    private final String literal;
    private final Expression expression;

    private LockName(String source, String literal, Expression expression) {
        this.source = source;
        this.literal = literal;
        this.expression = expression;
    }

    /**
     * Parses a name as written on the annotation (placeholders already resolved).
     *
     * @throws IllegalArgumentException if a literal is not a valid lock name or an expression does not parse
     */
    static LockName parse(String source) {
        if (LITERAL.matcher(source).matches()) {
            LockNames.requireValid(source);
            return new LockName(source, source, null);
        }
        try {
            Expression e = source.contains("#{")
                    ? PARSER.parseExpression(source, new TemplateParserContext())
                    : PARSER.parseExpression(source);
            return new LockName(source, null, e);
        } catch (ParseException e) {
            throw new IllegalArgumentException("name '" + source + "' is neither a literal lock name nor a SpEL expression that parses ("
                    + e.getMessage() + "); allowed: a literal such as orders/all, a template such as orders/#{#orderId}, or an expression "
                    + "such as #orderId or 'orders/' + #p0", e);
        }
    }

    boolean isLiteral() {
        return literal != null;
    }

    /**
     * The name for one call.
     *
     * @param method the method whose parameters name the arguments (the target class's implementation)
     * @throws IllegalArgumentException if the expression yields null or not a valid lock name
     */
    String evaluate(Method method, Object target, Object[] args, BeanFactory beans) {
        if (literal != null) {
            return literal;
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(new Root(method, target, args), method, args, PARAMETER_NAMES);
        if (beans != null) {
            context.setBeanResolver(new BeanFactoryResolver(beans));
        }
        Object value = expression.getValue(context);
        if (value == null) {
            throw new IllegalArgumentException("@Locked name '" + source + "' evaluated to null");
        }
        String name = value.toString();
        try {
            return LockNames.requireValid(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("@Locked name '" + source + "' evaluated to an invalid lock name: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return source;
    }

    /** The root object of a name expression: {@code #root.method}, {@code #root.target}, {@code #root.args}. */
    static final class Root {
        private final Method method;
        private final Object target;
        private final Object[] args;

        Root(Method method, Object target, Object[] args) {
            this.method = method;
            this.target = target;
            this.args = args;
        }

        public Method getMethod() {
            return method;
        }

        public Object getTarget() {
            return target;
        }

        public Object[] getArgs() {
            return args;
        }
    }
}
